/**
 * Issue 40: a large body's buffer is kept, once its reading is done, for the next list's body (a new one per cold
 * listing weighed on the collector). Over real HTTP: kept and reused only when done with, never handed out twice,
 * only the buffers the reading made and of the sizes it keeps; and listings one after the other, a longer answer then
 * a shorter one in the same buffer, each answer exactly its own customers.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generateDataset } from "@sdwan-connections/orchestrator-simulator";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import nodeFetch from "node-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredLength, doneWithBody, readBody } from "../src/body.js";
import { readCustomersByEnterprise } from "../src/customers-json/scanner.js";
import { createPortalOrchestrator, DEFAULT_CUSTOMERS_BOUND } from "../src/index.js";
import { LIST_LIMIT_BYTES } from "../src/transport.js";
import { targetFor } from "./helpers.js";

const MIB = 2 ** 20;
const answerOf = (enterprises: number, seed: number) =>
  Buffer.from(
    JSON.stringify(
      generateDataset({ partners: 1, enterprisesPerPartner: enterprises, seed }).partners[0]?.enterprises ?? [],
    ),
  );
// Both over the 1 MiB a kept buffer takes at least; the second shorter than the first.
const LONGER = answerOf(2_400, 1);
const SHORTER = answerOf(1_800, 2);

describe("a list's body buffer, kept for the next body", () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // `/bytes/<length>/<byte>`: that many of that byte; `/list/<longer|shorter>`: an answer of enterprises.
    server = createServer((req, res) => {
      req.resume();
      const [, kind, first, second] = (req.url ?? "").split("/");
      const body =
        kind === "bytes" ? Buffer.alloc(Number(first), Number(second)) : first === "longer" ? LONGER : SHORTER;
      res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      res.end(body);
    });
    await once(server.listen(0, "127.0.0.1"), "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  /** A body of `length` bytes of `byte`, read as the transport reads a list's. */
  const read = async (length: number, byte = 1) => {
    const response = await nodeFetch(`${url}/bytes/${length}/${byte}`);
    return await readBody(response, Math.min(declaredLength(response), LIST_LIMIT_BYTES), LIST_LIMIT_BYTES);
  };
  /** Takes whatever buffer is kept, so that each test starts with none. */
  const takeKept = () => read(MIB);

  it("takes the next body into a buffer once done with, and that body reads only its own bytes", async () => {
    await takeKept();
    const first = await read(3 * MIB, 0x61);
    doneWithBody(first);
    const second = await read(2 * MIB, 0x62);
    expect(second.buffer).toBe(first.buffer);
    expect(second.length).toBe(2 * MIB);
    expect(second.every((byte) => byte === 0x62)).toBe(true);
  });

  it("never hands a buffer out twice: only one done with is kept, and it is taken once", async () => {
    await takeKept();
    const [first, second] = [await read(3 * MIB), await read(3 * MIB)];
    expect(second.buffer).not.toBe(first.buffer);
    doneWithBody(first);
    const third = await read(3 * MIB);
    const fourth = await read(3 * MIB);
    expect(third.buffer).toBe(first.buffer);
    expect(fourth.buffer).not.toBe(first.buffer);
  });

  it("keeps only a buffer it made, of 1 to 16 MiB, and the larger of two", async () => {
    await takeKept();
    // A caller's buffer is never kept (it may still hold it).
    const callers = new Uint8Array(4 * MIB);
    doneWithBody(callers);
    expect((await read(2 * MIB)).buffer).not.toBe(callers.buffer);
    // Too small to be worth keeping, or too large to hold.
    for (const length of [MIB / 2, 17 * MIB]) {
      const body = await read(length);
      doneWithBody(body);
      expect((await read(length)).buffer, `${length}`).not.toBe(body.buffer);
    }
    const [smaller, larger] = [await read(2 * MIB), await read(4 * MIB)];
    doneWithBody(larger);
    doneWithBody(smaller);
    expect((await read(3 * MIB)).buffer).toBe(larger.buffer);
  });

  it("lists a longer answer, then a shorter one in its buffer, each as exactly its own customers", async () => {
    await takeKept();
    const orchestrator = createPortalOrchestrator({ timeoutMs: 10_000, retries: 0 });
    const listed: string[] = [];
    for (const answer of ["longer", "shorter", "longer", "shorter"]) {
      // The answer to name rides on the orchestrator URL's path prefix.
      const customers = await orchestrator.listPartnerCustomers(targetFor(`${url}/list/${answer}/`, "body-key"), 1)();
      if (E.isLeft(customers)) throw new Error(customers.left.reason);
      listed.push(Buffer.from(customers.right.json).toString("latin1"));
    }
    orchestrator.close();
    const expected = [LONGER, SHORTER].map((answer) => {
      const general = readCustomersByEnterprise(answer, DEFAULT_CUSTOMERS_BOUND);
      if (E.isLeft(general) || O.isNone(general.right)) throw new Error("the general path refused the answer");
      return Buffer.from(general.right.value.json).toString("latin1");
    });
    expect(listed).toEqual([...expected, ...expected]);
  });
});
