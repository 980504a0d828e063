/**
 * Issue 40: a listing's answer is read as it arrives, so the customers scan overlaps the transfer. Proved by order,
 * not by a clock: the server holds back the second half of the answer until the reader has seen the first, so a
 * transport that read the whole body before reading it would never finish.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generateDataset } from "@sdwan-connections/orchestrator-simulator";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanCustomersJson } from "../src/customers-json/scanner.js";
import { DEFAULT_CUSTOMERS_BOUND } from "../src/index.js";
import { createPortalTransport, type ListReader } from "../src/transport.js";
import { targetFor } from "./helpers.js";

const answer = Buffer.from(
  JSON.stringify(generateDataset({ partners: 1, enterprisesPerPartner: 300, seed: 40 }).partners[0]?.enterprises),
);
const half = answer.length >> 1;

describe("a listing's answer, read as it arrives", () => {
  let server: Server;
  let url: string;
  // The server's second half waits for this, which the reader calls once it has the first half.
  let release: () => void = () => undefined;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json", "content-length": answer.length });
      res.write(answer.subarray(0, half));
      const released = new Promise<void>((resolve) => (release = resolve));
      void released.then(() => res.end(answer.subarray(half)));
    });
    await once(server.listen(0, "127.0.0.1"), "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => server.close());

  it("hands the reader each piece, with every byte so far, before the last one comes, and answers what it ends with", async () => {
    const transport = createPortalTransport({ timeoutMs: 10_000, retries: 1, allowedHosts: undefined });
    const prefixes: number[] = [];
    let expected = -1;
    // Enterprises the scan had read when the first half was all there was.
    let readAtHalf = -1;
    const reader: ListReader<number> = {
      start: (expectedBytes) => {
        expected = expectedBytes;
        const scan = scanCustomersJson(DEFAULT_CUSTOMERS_BOUND, expectedBytes);
        return {
          more: (prefix) => {
            expect(Buffer.from(prefix).equals(answer.subarray(0, prefix.length))).toBe(true);
            prefixes.push(prefix.length);
            const read = scan.more(prefix);
            if (prefix.length >= half && readAtHalf < 0) {
              readAtHalf = read;
              release();
            }
          },
          end: (bytes) => {
            const done = scan.end(bytes);
            return E.right(E.isRight(done) && O.isSome(done.right) ? done.right.value.count : -1);
          },
        };
      },
    };
    const result = await transport.call(
      targetFor(url, "list-reading-key"),
      { method: "enterpriseProxy/getEnterpriseProxyEnterprises", body: { enterpriseProxyId: 1 }, list: "enterprises" },
      transport.startDeadline(),
      new AbortController().signal,
      reader,
    );
    transport.close();
    expect(expected).toBe(answer.length);
    expect(prefixes).toEqual([...prefixes].sort((a, b) => a - b));
    expect(prefixes.at(-1)).toBe(answer.length);
    // Most of the first half's 150 enterprises were read before the second half was sent.
    expect(readAtHalf).toBeGreaterThan(100);
    expect(readAtHalf).toBeLessThan(300);
    expect(E.isRight(result) && result.right.kind === "ok" && result.right.value).toBe(300);
  });
});
