import { createServer, type ServerResponse } from "node:http";
import { describeError, type DomainError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { afterEach, describe, expect, it } from "vitest";
import { createRemoteService } from "./rest-service.js";

// What a service answers GET /events with, one answer per request in turn: a stream (kept open or ended at once), or a status.
type Answer = "stream" | "stream-then-end" | number;

const PROBLEMS: Readonly<Record<number, { readonly type: string; readonly detail: string }>> = {
  400: { type: "invalid-input", detail: "The request is not valid." },
  401: { type: "unauthorized", detail: "The service token was revoked." },
  403: { type: "forbidden", detail: "This user may not read events." },
  404: { type: "no-such-endpoint", detail: "There is no such endpoint." },
  429: { type: "too-many-event-streams", detail: "This instance serves at most 1 event streams at once." },
  503: { type: "shutting-down", detail: "The service is shutting down." },
};

const answer = (response: ServerResponse, given: Answer) => {
  if (typeof given === "number") {
    const problem = PROBLEMS[given];
    // A 500 from a proxy: not a problem document.
    if (problem === undefined) return response.writeHead(given, { "content-type": "text/plain" }).end("Bad gateway");
    return response.writeHead(given, { "content-type": "application/problem+json" }).end(
      JSON.stringify({
        type: `urn:sdwan-connections:problem:${problem.type}`,
        title: problem.type,
        status: given,
        detail: problem.detail,
      }),
    );
  }
  response.writeHead(200, { "content-type": "text/event-stream" }).write(": connected\n\n");
  if (given === "stream-then-end") response.end();
};

describe("events --follow through a service: which answers end it", () => {
  const closers: (() => void)[] = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  // A service answering `answers` in turn (the last one again after them); counts the requests.
  const service = async (answers: readonly Answer[]) => {
    let requests = 0;
    const server = createServer((_request, response) => {
      answer(response, answers[Math.min(requests, answers.length - 1)] as Answer);
      requests += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => server.close());
    closers.push(() => server.closeAllConnections());
    const { port } = server.address() as { port: number };
    return {
      remote: createRemoteService({
        server: `http://127.0.0.1:${port}`,
        context: "svc",
        authorization: "Bearer sdw_test",
        timeoutMs: 5_000,
      }),
      requests: () => requests,
    };
  };
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  };

  it.each([401, 403, 400, 404])(
    "a reconnect answered %i ends the follow with the error a first connection answered so gets",
    async (status) => {
      const { remote, requests } = await service([status, "stream-then-end", status]);
      const first = await remote.events.follow({}, () => undefined)();
      const ends: DomainError[] = [];
      const stop = await remote.events.follow(
        {},
        () => undefined,
        (error) => ends.push(error),
      )();
      expect(E.isRight(stop)).toBe(true);
      await until(() => ends.length > 0);
      expect(E.isLeft(first) && first.left).toEqual(ends[0]);
      expect(describeError(ends[0] as DomainError)).not.toContain("sdw_test");
      // Ended for good: never opened again, and told once.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect({ requests: requests(), ends: ends.length }).toEqual({ requests: 3, ends: 1 });
    },
  );

  // Issue 38: a signed-in context's follow kept the access token it started with, refused at its first reconnect
  // once the token (15 minutes) had expired.
  it("opens the stream again with the Authorization the context makes anew", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers.authorization);
      answer(response, seen.length === 1 ? "stream-then-end" : "stream");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => server.close());
    closers.push(() => server.closeAllConnections());
    const { port } = server.address() as { port: number };
    let issued = 0;
    const remote = createRemoteService({
      server: `http://127.0.0.1:${port}`,
      context: "sso",
      authorization: "Bearer first",
      reauthorize: async () => `Bearer fresh-${(issued += 1)}`,
      timeoutMs: 5_000,
    });
    const stop = await remote.events.follow({}, () => undefined)();
    await until(() => seen.length === 2);
    expect(seen).toEqual(["Bearer first", "Bearer fresh-1"]);
    if (E.isRight(stop)) stop.right();
  });

  it("reconnects through a shutting-down service (503), too many streams (429), a proxy's 500 and a cut stream, until one stays open", async () => {
    const { remote, requests } = await service(["stream-then-end", 503, 429, 500, "stream-then-end", "stream"]);
    const ends: DomainError[] = [];
    const stop = await remote.events.follow(
      {},
      () => undefined,
      (error) => ends.push(error),
    )();
    await until(() => requests() === 6);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect({ requests: requests(), ends }).toEqual({ requests: 6, ends: [] });
    if (E.isRight(stop)) stop.right();
  });

  // Issue 37: the CLI's own parser cut frames at LF LF only, so a stream with CRLF line ends (allowed by the
  // standard, and what a proxy may send) gave no event at all; it now reads with the console's parser.
  it("reads CRLF frames, a frame cut across writes, and resumes from their last id", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers["last-event-id"] as string | undefined);
      response.writeHead(200, { "content-type": "text/event-stream" }).write(": connected\r\n\r\nid: 7\r\nevent: re");
      if (seen.length === 1) setTimeout(() => response.end("set\r\ndata: {}\r\n\r\n"), 50);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => server.close());
    closers.push(() => server.closeAllConnections());
    const { port } = server.address() as { port: number };
    const remote = createRemoteService({
      server: `http://127.0.0.1:${port}`,
      context: "svc",
      authorization: undefined,
      timeoutMs: 5_000,
    });
    const items: string[] = [];
    const stop = await remote.events.follow({}, (item) => void items.push(item._tag))();
    await until(() => seen.length === 2);
    expect({ items, seen }).toEqual({ items: ["reset"], seen: [undefined, "7"] });
    if (E.isRight(stop)) stop.right();
  });
});
