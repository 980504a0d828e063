import {
  CloudEventCodec,
  eventTypeOf,
  everyBeat,
  type CloudEvent,
  type DomainError,
  type Events,
  type FeedItem,
} from "@sdwan-connections/core";
import type { Response, Router } from "express";
import type { AuthenticatedUser } from "../auth/authenticator.js";
import { domainErrorToProblem, problem } from "../errors.js";
import { recheckOf } from "../middleware/authenticate.js";
import { mayRead, needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { userOf } from "../middleware/request-context.js";
import { sendProblem } from "../respond.js";

/** The event streams open on this instance: each one's ender, so a shutdown ends them all first (its drain is not held). */
export type EventStreams = Set<() => void>;

/** What /metrics tells of the streams of this instance: how many are open, and how many of them are replaying. */
export interface EventStreamCounts {
  readonly open: number;
  readonly replaying: number;
}

export interface EventsOptions {
  readonly streams: EventStreams;
  /** At most this many streams open at once (SDWAN_EVENTS_MAX_STREAMS), a tenth of them per principal; the next is answered 429. */
  readonly maxStreams: number;
  /** A comment line at least this often (SDWAN_EVENTS_HEARTBEAT_S), so proxies and clients see the stream alive. */
  readonly heartbeatMs: number;
  /** True once shutdown began: a new stream is refused (it would hold the drain). */
  readonly draining: () => boolean;
  /** What a user may read now (SPEC §11), for an open stream to decide again; undefined: no authentication, everything. */
  readonly readableBy?: (user: AuthenticatedUser) => Promise<((alias: string) => boolean) | undefined>;
  /** Tells of every grant change (any instance's): open streams decide again at once. Returns the remover. */
  readonly onGrantsChange?: (listener: () => void) => () => void;
  /** Where /metrics reads the streams' counts. */
  readonly watch: (counts: () => EventStreamCounts) => void;
}

// A reader this far behind (bytes queued for its socket) is cut off; it comes back with Last-Event-ID.
const MAX_QUEUED_BYTES = 1024 * 1024;
// How often an open stream checks its credentials and grants again (from caches the change feeds keep current):
// with the service tokens' verification kept 500 ms, a revocation on any instance ends its streams within a second.
const RECHECK_MS = 500;

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

// A bad Last-Event-ID header is named as the header, as a bad If-Match is: the client sent no query option.
const headerNamed = (error: DomainError): DomainError =>
  error._tag === "InvalidInput"
    ? {
        ...error,
        errors: error.errors.map((one) =>
          one.field === "query.lastEventId" ? { ...one, field: "Last-Event-ID" } : one,
        ),
      }
    : error;

/**
 * The one writer of a stream's response: it knows when the response has ended, and never writes after (a write
 * after the end would be an `error` of the response, which must never end the process: it has a listener too).
 * A write answers a promise when the socket's buffer is full: the writer that can wait (a replay) waits for the
 * drain. A reader more than MAX_QUEUED_BYTES behind is cut off.
 */
const streamWriter = (res: Response) => {
  let ended = false;
  let corked = false;
  const waiting = new Set<() => void>();
  const finish = (how: () => void) => {
    if (ended) return;
    ended = true;
    how();
    for (const wake of waiting) wake();
    waiting.clear();
  };
  res.on("error", () => finish(() => res.destroy()));
  res.on("close", () => finish(() => undefined));
  res.on("drain", () => {
    for (const wake of waiting) wake();
    waiting.clear();
  });
  return {
    ended: () => ended,
    write: (text: string): void | Promise<void> => {
      if (ended) return;
      // The frames of one turn (a replay's page) leave in one write.
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(() => {
          corked = false;
          res.uncork();
        });
      }
      const flowing = res.write(text);
      // Cut without waiting for what is queued: the reader is that far behind, and comes back with Last-Event-ID.
      if (res.writableLength > MAX_QUEUED_BYTES) return finish(() => res.destroy());
      if (!flowing) return new Promise<void>((wake) => waiting.add(wake));
    },
    /** Ends the stream after what is queued (a shutdown). */
    end: () => finish(() => res.end()),
    /** Cuts the stream now (credentials refused): nothing queued is sent. */
    cut: () => finish(() => res.destroy()),
  };
};

const principalName = (user: AuthenticatedUser): string => (user.name.includes(":") ? user.name : `user:${user.name}`);

/**
 * docs/interface.md, Events: `GET /events`, the event log as Server-Sent Events (any authenticated user). The
 * query is decoded by the use case; `Last-Event-ID` (sent by a reconnecting EventSource) wins over
 * `?lastEventId=`. Never compressed: each frame is written as it comes. The headers go out once the feed is open,
 * before its catch-up, which is read a page at a time as the socket takes it.
 */
export const eventsRoutes = (
  router: Router,
  events: Events,
  { streams, maxStreams, heartbeatMs, draining, readableBy, onGrantsChange, watch }: EventsOptions,
): void => {
  // Streams per principal (`user:NAME`, `oidc:NAME`, `token:NAME`), whatever credentials each came with.
  const perPrincipal = Math.max(1, Math.floor(maxStreams / 10));
  const byPrincipal = new Map<string, number>();
  let replaying = 0;
  watch(() => ({ open: streams.size, replaying }));
  // Each open stream's check of its credentials and grants, run together on the process's shared beat (core's
  // `everyBeat`, while a stream is open) and at every grant change.
  const checks = new Set<() => void>();
  let stopChecking: (() => void) | undefined;
  const checkAll = () => {
    for (const check of checks) check();
  };
  onGrantsChange?.(checkAll);
  const watchStream = (check: () => void): (() => void) => {
    checks.add(check);
    stopChecking ??= everyBeat(RECHECK_MS, checkAll);
    return () => {
      checks.delete(check);
      if (checks.size > 0) return;
      stopChecking?.();
      stopChecking = undefined;
    };
  };
  const tooMany = (res: Response, detail: string) =>
    sendProblem(res, problem("too-many-event-streams", detail, { headers: { "Retry-After": "10" } }));

  router
    .route("/events")
    .get(needs("any"), async (req, res) => {
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
        tooMany(res, `This instance serves at most ${maxStreams} event streams at once.`);
        return;
      }
      const user = userOf(res.locals);
      const principal = user === undefined ? undefined : principalName(user);
      if (principal !== undefined && (byPrincipal.get(principal) ?? 0) >= perPrincipal) {
        tooMany(res, `This instance serves at most ${perPrincipal} event streams at once to one principal.`);
        return;
      }
      if (req.method === "HEAD") {
        res.status(200).setHeader("Content-Type", "text/event-stream; charset=utf-8").end();
        return;
      }
      const header = req.headers["last-event-id"];
      const fromHeader = typeof header === "string" && header !== "";
      const query = { ...(req.query as Record<string, unknown>), ...(fromHeader ? { lastEventId: header } : {}) };
      const writer = streamWriter(res);
      // Counted before the feed opens, so streams opening at once never pass the caps together.
      streams.add(writer.end);
      if (principal !== undefined) byPrincipal.set(principal, (byPrincipal.get(principal) ?? 0) + 1);
      // Filtered by what the user may read (SPEC §11), decided again while the stream is open.
      let readable = mayRead(res.locals);
      const recheck = recheckOf(res.locals);
      let checking = false;
      const check = () => {
        if (checking || recheck === undefined || readableBy === undefined) return;
        checking = true;
        void (async () => {
          const now = await recheck();
          if (now === undefined) return writer.cut();
          readable = (await readableBy(now)) ?? readable;
        })()
          .catch(() => undefined)
          .finally(() => (checking = false));
      };
      const unwatch = watchStream(check);
      // What the close of the response (the client gone, or ended here) must undo, as far as it got.
      const left = new AbortController();
      const open: { stop?: () => void; heartbeat?: NodeJS.Timeout } = {};
      res.on("close", () => {
        left.abort();
        clearInterval(open.heartbeat);
        open.stop?.();
        unwatch();
        streams.delete(writer.end);
        if (principal === undefined) return;
        const held = (byPrincipal.get(principal) ?? 1) - 1;
        if (held === 0) byPrincipal.delete(principal);
        else byPrincipal.set(principal, held);
      });
      const opened = () => {
        if (writer.ended()) return;
        res.writeHead(200, {
          "Content-Type": "text/event-stream; charset=utf-8",
          "Cache-Control": "no-store, no-transform",
          // nginx and similar proxies otherwise buffer the stream.
          "X-Accel-Buffering": "no",
          // One stream, one connection: when it ends (a shutdown, a reader too far behind) the socket goes too.
          Connection: "close",
        });
        void writer.write(": connected\n\n");
        open.heartbeat = setInterval(() => void writer.write(": heartbeat\n\n"), heartbeatMs);
      };
      const replay = "lastEventId" in query;
      if (replay) replaying += 1;
      const followed = await events.follow(query, (item) => writer.write(frame(item)), undefined, {
        readable: (alias) => readable(alias),
        opened,
        signal: left.signal,
      })();
      if (replay) replaying -= 1;
      if (followed._tag === "Left") {
        // Before the headers (a bad query): answered as any request; after them (the store failed mid-replay): cut.
        if (res.headersSent) writer.cut();
        else if (!writer.ended())
          sendProblem(res, domainErrorToProblem(fromHeader ? headerNamed(followed.left) : followed.left));
        return;
      }
      open.stop = followed.right;
      if (left.signal.aborted || writer.ended()) open.stop();
    })
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
};
