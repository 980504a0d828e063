import { isLeft } from "fp-ts/lib/Either.js";
import { CloudEvent } from "@sdwan-connections/core/wire";
import { ApiError, call } from "./api.js";
import { createParser } from "eventsource-parser";

/** Where a follower stands: reading live, or waiting to reconnect after the stream dropped. */
export type FollowState = "connecting" | "live" | "reconnecting";

export interface Follower {
  /** Each event, in order. */
  readonly onEvent: (event: CloudEvent) => void;
  /** The service no longer keeps what came after the last event read: read the state again. */
  readonly onReset: () => void;
  readonly onState: (state: FollowState) => void;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;
// Answers a retry cannot mend: credentials refused (an ended session also signs the console out), no right, a bad query.
const FINAL_STATUSES = new Set([400, 401, 403, 404]);

/** The wait before retry `n` (0, 1, …): doubling from 0.5 s to 10 s, ±20 % so that many consoles do not come back at once. */
export const retryDelayMs = (n: number, random = Math.random): number =>
  Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** n) * (0.8 + 0.4 * random());

/**
 * Follows `GET /events?<query>` with the console's own Authorization (an EventSource cannot send one), read
 * with fetch as a stream. After a drop (a restart, a network cut) it reconnects with backoff and resumes with
 * `Last-Event-ID`, so nothing written meanwhile is missed. Returns the function that stops it.
 */
export const followEvents = (authorization: string, query: string, follower: Follower): (() => void) => {
  const stopping = new AbortController();
  let lastEventId: string | undefined;
  const parser = createParser({
    onEvent: (message) => {
      if (message.event === "reset") {
        lastEventId = undefined;
        follower.onReset();
        return;
      }
      // The parser tells each event's own id: the last one named is kept, as an EventSource keeps it.
      lastEventId = message.id ?? lastEventId;
      try {
        const decoded = CloudEvent.decode(JSON.parse(message.data));
        if (!isLeft(decoded)) follower.onEvent(decoded.right);
      } catch {
        // Not JSON: an event of another version of the service, skipped.
      }
    },
  });
  const readOnce = async (): Promise<void> => {
    const response = await call(authorization, "GET", `/events?${query}`, {
      headers: { accept: "text/event-stream", ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) },
      signal: stopping.signal,
    });
    follower.onState("live");
    // A new stream starts with no half-read line of the one before.
    parser.reset({ consume: false });
    if (response.body === null) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) parser.feed(read.value);
  };
  void (async () => {
    follower.onState("connecting");
    for (let retry = 0; !stopping.signal.aborted;) {
      const opened = Date.now();
      try {
        await readOnce();
      } catch (error) {
        if (stopping.signal.aborted || (error instanceof ApiError && FINAL_STATUSES.has(error.problem.status))) return;
      }
      if (stopping.signal.aborted) return;
      follower.onState("reconnecting");
      // A stream that lived a while starts the backoff over; one that failed at once waits longer each time.
      retry = Date.now() - opened > MAX_RETRY_MS ? 0 : retry;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs(retry)));
      retry += 1;
    }
  })();
  return () => stopping.abort();
};
