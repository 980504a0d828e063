import {
  CloudEventCodec,
  eventTypeOf,
  type CloudEvent,
  type ConnectionService,
  type FeedItem,
} from "@sdwan-connections/core";
import { mayRead } from "../middleware/authorize.js";
import { Router } from "express";
import { domainErrorToProblem, problem } from "../errors.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { sendProblem } from "../respond.js";

/** The event streams open on this instance: each one's ender, so a shutdown ends them all first (its drain is not held). */
export type EventStreams = Set<() => void>;

export interface EventsOptions {
  readonly streams: EventStreams;
  /** At most this many streams open at once (SDWAN_EVENTS_MAX_STREAMS); the next is answered 429. */
  readonly maxStreams: number;
  /** A comment line at least this often (SDWAN_EVENTS_HEARTBEAT_S), so proxies and clients see the stream alive. */
  readonly heartbeatMs: number;
  /** True once shutdown began: a new stream is refused (it would hold the drain). */
  readonly draining: () => boolean;
}

// A reader this far behind (bytes queued for its socket) is cut off; it comes back with Last-Event-ID.
const MAX_QUEUED_BYTES = 1024 * 1024;

const RESET = `event: reset\ndata: {"reason":"the events after the given id are no longer kept: read the state again, then follow from here"}\n\n`;

// Every stream is handed the same event object: framed once, however many streams follow.
const frames = new WeakMap<CloudEvent, string>();

/** One item as the Server-Sent Events wire format frames it; the event's JSON is one line, so one `data:` line. */
const frame = (item: FeedItem): string => {
  if (item._tag === "reset") return RESET;
  const framed =
    frames.get(item.event) ??
    `id: ${item.event.id}\nevent: ${eventTypeOf(item.event)}\ndata: ${JSON.stringify(CloudEventCodec.encode(item.event))}\n\n`;
  frames.set(item.event, framed);
  return framed;
};

/**
 * docs/interface.md, Events: `GET /events`, the event log as Server-Sent Events (any authenticated user). The
 * query is decoded by the use case; `Last-Event-ID` (sent by a reconnecting EventSource) wins over
 * `?lastEventId=`. Never compressed: each frame is written as it comes.
 */
export const eventsRoutes = (
  service: ConnectionService,
  { streams, maxStreams, heartbeatMs, draining }: EventsOptions,
): Router => {
  const router = Router({ caseSensitive: true, strict: false });
  router
    .route("/events")
    .get(async (req, res) => {
      if (draining()) {
        sendProblem(
          res,
          problem(
            "shutting-down",
            "The service is shutting down: reconnect to another instance, or to this one once it is back.",
            { headers: { "Retry-After": "5" } },
          ),
        );
        return;
      }
      if (streams.size >= maxStreams) {
        sendProblem(
          res,
          problem("too-many-event-streams", `This instance serves at most ${maxStreams} event streams at once.`, {
            headers: { "Retry-After": "10" },
          }),
        );
        return;
      }
      if (req.method === "HEAD") {
        res.status(200).setHeader("Content-Type", "text/event-stream; charset=utf-8").end();
        return;
      }
      const header = req.headers["last-event-id"];
      const query = {
        ...(req.query as Record<string, unknown>),
        ...(typeof header === "string" && header !== "" ? { lastEventId: header } : {}),
      };
      // Counted before the feed opens, so streams opening at once never pass the cap together.
      const end = () => res.end();
      streams.add(end);
      // What the close of the response (the client gone, or ended here) must undo, as far as it got.
      const open: { closed: boolean; stop?: () => void; heartbeat?: NodeJS.Timeout } = { closed: false };
      res.on("close", () => {
        open.closed = true;
        clearInterval(open.heartbeat);
        open.stop?.();
        streams.delete(end);
      });
      // What the feed hands on before the headers are out (its catch-up) waits for them.
      const held: FeedItem[] = [];
      let write: (item: FeedItem) => void = (item) => void held.push(item);
      // Filtered by what the user may read (SPEC §11), before its own globs: a connection it may not read has no events for it.
      const followed = await service.followEvents(query, (item) => write(item), undefined, mayRead(res.locals))();
      if (followed._tag === "Left") {
        streams.delete(end);
        sendProblem(res, domainErrorToProblem(followed.left));
        return;
      }
      open.stop = followed.right;
      if (open.closed) return open.stop();
      res.writeHead(200, {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store, no-transform",
        // nginx and similar proxies otherwise buffer the stream.
        "X-Accel-Buffering": "no",
        // One stream, one connection: when it ends (a shutdown, a reader too far behind) the socket goes too.
        Connection: "close",
      });
      const send = (text: string) => {
        res.write(text);
        if (res.writableLength > MAX_QUEUED_BYTES) res.end();
      };
      send(": connected\n\n");
      write = (item) => send(frame(item));
      for (const item of held) write(item);
      open.heartbeat = setInterval(() => send(": heartbeat\n\n"), heartbeatMs);
    })
    .all(methodNotAllowed("GET, HEAD"));
  return router;
};
