import { performance } from "node:perf_hooks";
import { ADMIN, basic } from "./harness.js";

/** One Server-Sent Event as a client parses it (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
  /** When it arrived (performance.now()). */
  readonly at: number;
}

/**
 * A small EventSource over fetch, for tests: it keeps the response (status, headers), every event and comment
 * as they arrive, and whether the stream ended; `close` aborts it.
 */
export const openEventStream = async (
  url: string,
  options: {
    readonly user?: { readonly name: string; readonly password: string };
    readonly headers?: Record<string, string>;
  } = {},
) => {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: basic(options.user ?? ADMIN), accept: "text/event-stream", ...options.headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  const read = async () => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | undefined;
          let event = "message";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else if (line.startsWith("id: ")) id = line.slice(4);
            else if (line.startsWith("event: ")) event = line.slice(7);
            else if (line.startsWith("data: ")) data.push(line.slice(6));
          }
          if (data.length > 0) events.push({ id, event, data: data.join("\n"), at: performance.now() });
        }
      }
    } catch {
      // Aborted by `close`, or the connection cut: ended either way.
    }
    ended = true;
  };
  const reading = response.ok ? read() : Promise.resolve();
  return {
    response,
    events,
    comments,
    /** The CloudEvents received so far (the `data:` of each event but `reset`). */
    cloudEvents: () =>
      events
        .filter((event) => event.event !== "reset")
        .map(
          (event) =>
            JSON.parse(event.data) as { id: string; type: string; subject: string; data: Record<string, unknown> },
        ),
    ended: () => ended,
    close: async () => {
      controller.abort();
      await reading;
    },
    [Symbol.asyncDispose]: async () => {
      controller.abort();
      await reading;
    },
  };
};

export type EventStream = Awaited<ReturnType<typeof openEventStream>>;
