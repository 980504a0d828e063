/**
 * Issue 27: one orchestrator answer could take the service past its memory limit (512 MiB). Within the
 * customers bound, an answer the byte-level reading does not take was parsed whole by `JSON.parse`: 63 MiB
 * of `[[],[],…]` in an unread field peaked at 1,483 MiB. Here the portal client runs in a process of its own
 * against a scripted orchestrator over real HTTP; each answer holds 32 MiB of `[]`, and the process's peak
 * resident set (VmHWM) may grow by no more than the answer's bytes (read, and joined from their chunks) and
 * the customers' (32 MiB at most, the default bound) twice each, beside 64 MiB of room.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CUSTOMERS_BOUND } from "../src/index.js";

const MIB = 2 ** 20;
const ANSWER_MIB = 32;
const GROWTH_LIMIT = 2 * ANSWER_MIB * MIB + 2 * DEFAULT_CUSTOMERS_BOUND.replyBytes + 64 * MIB;

/** `before`, then `[]` repeated to fill `bytes`, then `after`. */
const filled = (before: string, bytes: number, after: string): Buffer => {
  const pairs = Math.floor((bytes - before.length - after.length) / 3);
  return Buffer.from(`${before}${"[],".repeat(pairs)}[]${after}`);
};
// A key with an escape: not the byte-level reading's usual form, so the enterprise takes the general reading.
const unusual = (id: number, bytes: number) =>
  filled(`{"id":${id},"logicalId":"e${id}","\\u0061":1,"unread":[`, bytes, "]}");
const list = (items: readonly Buffer[]) =>
  Buffer.concat([
    Buffer.from("["),
    ...items.flatMap((item, i) => (i === 0 ? [item] : [Buffer.from(","), item])),
    Buffer.from("]"),
  ]);

interface Scripted {
  readonly status: number;
  readonly body: Buffer;
}

const CASES: readonly (readonly [string, "identify" | "list", Scripted, unknown])[] = [
  [
    "a listing of one enterprise holding 32 MiB of [] in an unread field: garbage naming the size an enterprise may take",
    "list",
    { status: 200, body: list([unusual(1, ANSWER_MIB * MIB)]) },
    {
      _tag: "OrchestratorGarbage",
      reason:
        "The orchestrator's answer to getEnterpriseProxyEnterprises is not a list of enterprises: enterprise [0] is larger than 1 MiB.",
    },
  ],
  [
    "a listing of 40 such enterprises of 0.8 MiB each: listed, one enterprise parsed at a time",
    "list",
    { status: 200, body: list(Array.from({ length: 40 }, (_, i) => unusual(i + 1, 0.8 * MIB))) },
    { count: 40 },
  ],
  [
    "a listing answer that is no list, 32 MiB: garbage naming the size anything but a list may take",
    "list",
    { status: 200, body: filled('{"unread":[', ANSWER_MIB * MIB, "]}") },
    {
      _tag: "OrchestratorGarbage",
      reason:
        "The orchestrator's answer to enterpriseProxy/getEnterpriseProxyEnterprises is larger than 1 MiB and not a list of enterprises.",
    },
  ],
  [
    "a 400 to the listing with 32 MiB of []: garbage, likewise",
    "list",
    { status: 400, body: filled("[", ANSWER_MIB * MIB, "]") },
    {
      _tag: "OrchestratorGarbage",
      reason:
        "The orchestrator's answer to enterpriseProxy/getEnterpriseProxyEnterprises is larger than 1 MiB and not a list of enterprises.",
    },
  ],
  [
    "both identification checks answered with 32 MiB of []: garbage, read no further than 1 MiB",
    "identify",
    { status: 200, body: filled('{"id":1,"unread":[', ANSWER_MIB * MIB, "]}") },
    {
      _tag: "OrchestratorGarbage",
      reason: "The orchestrator's answer to enterprise/getEnterprise is larger than 1 MiB.",
    },
  ],
];

describe("no orchestrator answer takes the service's memory past a bound, whatever its form (issue 27)", () => {
  let answer: Scripted = { status: 500, body: Buffer.from("") };
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on("end", () =>
        response.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body),
      );
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => server.close());

  /** The call in a process of its own: its result and how far its peak resident set grew past where it was. */
  const callOnce = async (call: "identify" | "list") => {
    const child = spawn(
      process.execPath,
      [
        "--conditions=sdwan-source",
        "--import",
        "tsx",
        fileURLToPath(new URL("support/call-once.ts", import.meta.url)),
        url,
        call,
      ],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    await once(child, "exit");
    const { result, rssBefore, peak } = JSON.parse(stdout) as { result: unknown; rssBefore: number; peak: number };
    return { result, growth: peak - rssBefore };
  };

  it.each(CASES)(
    "%s",
    async (_, call, scripted, expected) => {
      answer = scripted;
      const { result, growth } = await callOnce(call);
      expect(result).toEqual(expected);
      expect(growth, `grew ${(growth / MIB).toFixed(1)} MiB`).toBeLessThanOrEqual(GROWTH_LIMIT);
    },
    120_000,
  );
});
