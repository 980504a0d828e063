import {
  CloudEventCodec,
  type Events,
  storageFailure,
  type CloudEvent,
  type DomainError,
  type FeedItem,
} from "@sdwan-connections/core";
import { createParser } from "eventsource-parser";
import * as E from "fp-ts/lib/Either.js";
import type * as t from "io-ts";
import type { Answer } from "./rest-codecs.js";
import { requestOf, type ServiceEndpoint } from "./service-endpoint.js";

// How long `events --follow` waits before opening an ended stream again: doubling from the first to the most, with jitter.
const RECONNECT_MS = { first: 250, max: 5_000 };
// Three of the service's heartbeats (one at least every 15 s) missed: the stream is taken for cut.
const STREAM_IDLE_MS = 45_000;
// An answer the same request would get again (4xx: credentials refused or no longer allowing it, a query or an
// endpoint not this service's) ends `events --follow`; 408, 429, 5xx and cuts are passing, opened again.
const endsFollow = (status: number): boolean => status >= 400 && status < 500 && status !== 408 && status !== 429;

/** What the stream shares with the service's other requests: how an answer is decoded, and a problem read. */
export interface StreamReading {
  readonly origin: string;
  readonly path: string;
  readonly json: <A>(codec: t.Decoder<unknown, A>, answer: Answer) => E.Either<DomainError, A>;
  readonly problemError: (answer: Answer, alias: string | undefined) => Promise<DomainError>;
}

/**
 * `events --follow` through a service: `GET /events` as Server-Sent Events, opened again after a cut or a
 * restart from the last event seen (Last-Event-ID), until stopped or refused.
 */
export const followStream =
  (endpoint: ServiceEndpoint, { origin, path, json, problemError }: StreamReading): Events["follow"] =>
  (queryValues, deliver, ended) =>
  async () => {
    const url = new URL(
      `${origin}${path}?${new URLSearchParams(Object.entries(queryValues).map(([name, value]): [string, string] => [name, String(value)])).toString()}`,
    );
    const request = await requestOf(url);
    return new Promise((resolve) => {
      const stop = new AbortController();
      // The last event seen: a stream that ends (a restart, a cut) is opened again from it, so none is lost or repeated.
      let lastEventId: string | undefined;
      let opened = false;
      let delayMs = RECONNECT_MS.first;
      let timer: NodeJS.Timeout | undefined;
      stop.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      let reconnecting = false;
      let authorization = endpoint.authorization;
      const reconnect = () => {
        if (stop.signal.aborted) return;
        const waitMs = delayMs * (0.5 + Math.random() / 2);
        endpoint.onReconnect?.(
          `the stream from ${origin} ended; reconnecting in ${(waitMs / 1000).toFixed(1)} s${lastEventId === undefined ? "" : ` (from event ${lastEventId})`}`,
        );
        reconnecting = true;
        timer = setTimeout(async () => {
          authorization = (await endpoint.reauthorize?.()) ?? authorization;
          if (!stop.signal.aborted) connect();
        }, waitMs);
        delayMs = Math.min(delayMs * 2, RECONNECT_MS.max);
      };
      // The first answer settles the command (a service that cannot be reached or refuses: its error); after it, a
      // refusal that would be answered again ends the follow with the same error, and every other end is reconnected.
      const failed = (error: DomainError) => {
        if (!opened) return resolve(E.left(error));
        if (stop.signal.aborted) return;
        stop.abort();
        ended?.(error);
      };
      function connect(): void {
        let closed = false;
        const end = () => {
          if (closed) return;
          closed = true;
          reconnect();
        };
        const call = request(url, {
          headers: {
            accept: "text/event-stream",
            ...(authorization === undefined ? {} : { authorization }),
            // Wins over ?lastEventId= (SPEC §9): what came after the last event seen is replayed first.
            ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
          },
          signal: stop.signal,
          // A connection of its own, closed with the stream: a kept-alive one would hold a stopping service's drain.
          agent: false,
          // The service sends a comment at least every 15 s: a stream silent for longer was cut without a word.
          timeout: STREAM_IDLE_MS,
          ...(endpoint.ca === undefined ? {} : { ca: endpoint.ca }),
        });
        call.on("timeout", () => call.destroy());
        call.on("error", (error: NodeJS.ErrnoException) =>
          closed
            ? undefined
            : opened
              ? end()
              : failed(storageFailure(`The service at ${origin} cannot be reached (${error.code ?? error.message}).`)),
        );
        call.on("response", (response) => {
          if (response.statusCode !== 200) {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => {
              if (opened && !endsFollow(response.statusCode ?? 0)) return end();
              closed = true;
              void problemError(
                { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") },
                undefined,
              ).then(failed);
            });
            return;
          }
          response.on("error", end);
          response.on("close", end);
          if (!opened) resolve(E.right(() => stop.abort()));
          if (reconnecting) endpoint.onReconnect?.(`reconnected to ${origin}`);
          reconnecting = false;
          opened = true;
          delayMs = RECONNECT_MS.first;
          // Server-Sent Events, read by the one parser the console uses too: `id:` is the event's, `event:` names
          // it, `data:` holds the CloudEvent; comments (`:`) keep it alive.
          response.setEncoding("utf8");
          let taken: Promise<void>[] = [];
          const parser = createParser({
            onEvent: ({ id, event, data }) => {
              const delivered =
                event === "reset"
                  ? deliver({ _tag: "reset" })
                  : // Read as every other answer is: parsed, then decoded with the one codec; anything else is skipped.
                    E.match(
                      () => undefined,
                      (decoded: CloudEvent) => deliver({ _tag: "event", event: decoded } satisfies FeedItem),
                    )(json(CloudEventCodec, { status: response.statusCode ?? 0, text: data }));
              if (delivered instanceof Promise) taken.push(delivered);
              lastEventId = id ?? lastEventId;
            },
          });
          response.on("data", (chunk: string) => {
            parser.feed(chunk);
            // The reader's output is full: the socket is read again once it drained (the service then waits too).
            if (taken.length === 0) return;
            response.pause();
            void Promise.all(taken).then(() => response.resume());
            taken = [];
          });
        });
        call.end();
      }
      connect();
    });
  };
