import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { withFlags } from "./query-flags.js";

/** A request whose `query` getter counts its parses, as express's parses the query string at each read. */
const request = (url: string, query: Record<string, unknown>) => {
  let parsed = 0;
  const req = {
    url,
    get query() {
      parsed += 1;
      return query;
    },
  } as unknown as Request;
  return { req, parses: () => parsed };
};

const answered = () => {
  const sent: { status?: number } = {};
  const res = {
    req: { headers: {}, readableEnded: true },
    status(code: number) {
      sent.status = code;
      return res;
    },
    setHeader: () => res,
    end: () => res,
  } as unknown as Response;
  return { res, sent };
};

describe("withFlags", () => {
  it("hands every option false to a request without a query string, without parsing one", async () => {
    const { req, parses } = request("/connections", {});
    const seen: unknown[] = [];
    await withFlags(["dryrun", "force"], async (_req, _res, flags) => void seen.push(flags))(
      req,
      answered().res,
      () => {},
    );
    expect(seen).toEqual([{ dryrun: false, force: false }]);
    expect(parses()).toBe(0);
  });

  it("decodes the query string when there is one, and refuses an unknown option before the handler runs", async () => {
    const seen: unknown[] = [];
    const handler = withFlags(["dryrun"], async (_req, _res, flags) => void seen.push(flags));
    await handler(request("/connections?dryrun=TRUE", { dryrun: "TRUE" }).req, answered().res, () => {});
    const refused = answered();
    await handler(request("/connections?dryRun=true", { dryRun: "true" }).req, refused.res, () => {});
    expect(seen).toEqual([{ dryrun: true }]);
    expect(refused.sent.status).toBe(400);
  });
});
