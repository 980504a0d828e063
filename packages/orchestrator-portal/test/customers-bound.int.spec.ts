/**
 * Issue 27: one orchestrator answer could take the service past its memory limit (16 MiB of minimal
 * enterprises made a 204 MiB reply). The listing holds to a bound of enterprises and reply bytes, over real
 * HTTP from the simulator, on the fast path and on the general one alike.
 */
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import type { CustomerList, OrchestratorError } from "@sdwan-connections/core";
import {
  decodeDataset,
  startOrchestratorSimulator,
  type OrchestratorSimulator,
  type PartnerRecord,
} from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCustomersJson } from "../src/customers-json/scanner.js";
import { createPortalOrchestrator, DEFAULT_CUSTOMERS_BOUND, type CustomersBound } from "../src/index.js";
import { targetFor } from "./helpers.js";

/** The smallest enterprise the API may send: about 24 bytes, each a customer of about 305. */
const minimal = (count: number): object[] =>
  Array.from({ length: count }, (_, i) => ({ id: i + 1, logicalId: `e${i + 1}` }));
// A key JSON.stringify escapes ("a\nb") is not the fast path's usual form: the answer goes to the general path (JSON.parse, io-ts).
const unusual = (count: number): object[] => [{ id: 0, logicalId: "e0", "a\nb": 1 }, ...minimal(count - 1)];

const partner = (enterpriseProxyId: number, enterprises: object[]) => ({
  enterpriseProxyId,
  name: `partner ${enterpriseProxyId}`,
  keys: [`partner-key-${enterpriseProxyId}`],
  enterprises,
});
const data = decodeDataset({
  partners: [
    partner(10, minimal(DEFAULT_CUSTOMERS_BOUND.enterprises)),
    partner(11, minimal(DEFAULT_CUSTOMERS_BOUND.enterprises + 1)),
    partner(12, minimal(1_000)),
    partner(13, unusual(1_000)),
  ],
  customerKeys: [],
});
if (E.isLeft(data)) throw new Error(data.left);
const [AT_DEFAULT, OVER_DEFAULT, SMALL, SMALL_UNUSUAL] = data.right.partners as [
  PartnerRecord,
  PartnerRecord,
  PartnerRecord,
  PartnerRecord,
];

describe("the customers bound, over real HTTP", () => {
  let simulator: OrchestratorSimulator;
  beforeAll(async () => {
    simulator = await startOrchestratorSimulator({ data: data.right, record: false });
  });
  afterAll(() => simulator.stop());

  const list = async (
    of: PartnerRecord,
    customersBound?: CustomersBound,
  ): Promise<E.Either<OrchestratorError, CustomerList>> => {
    const orchestrator = createPortalOrchestrator({
      allowedHosts: undefined,
      timeoutMs: 30_000,
      ...(customersBound === undefined ? {} : { customersBound }),
    });
    try {
      return await orchestrator.listPartnerCustomers(
        targetFor(simulator.url, of.keys[0] as string),
        of.enterpriseProxyId,
      )();
    } finally {
      orchestrator.close();
    }
  };
  const countOf = (listed: E.Either<OrchestratorError, CustomerList>) =>
    E.isRight(listed) ? listed.right.count : listed.left.reason;
  const bytesOf = (listed: E.Either<OrchestratorError, CustomerList>) =>
    E.isRight(listed) ? listed.right.json.length : 0;
  const OVER_ENTERPRISES = (max: number) => ({
    _tag: "OrchestratorGarbage",
    reason: `The orchestrator's answer to getEnterpriseProxyEnterprises lists more than ${max} enterprises, the bound SDWAN_CUSTOMERS_MAX_ENTERPRISES sets.`,
  });
  const OVER_BYTES = (max: number) => ({
    _tag: "OrchestratorGarbage",
    reason: `The customers of the orchestrator's answer to getEnterpriseProxyEnterprises take more than ${max} bytes of JSON, the bound SDWAN_CUSTOMERS_MAX_REPLY_BYTES sets.`,
  });
  const unbounded = { enterprises: 10_000_000, replyBytes: 2 ** 30 };

  it("by default takes 100,000 minimal enterprises and refuses 100,001 as garbage, naming the setting and no data", async () => {
    expect(countOf(await list(AT_DEFAULT))).toBe(DEFAULT_CUSTOMERS_BOUND.enterprises);
    const over = await list(OVER_DEFAULT);
    expect(E.isLeft(over) && over.left).toEqual(OVER_ENTERPRISES(DEFAULT_CUSTOMERS_BOUND.enterprises));
  });

  it.each([
    ["the usual form (fast path)", SMALL],
    ["an unusual form (general path)", SMALL_UNUSUAL],
  ])("%s: takes exactly the bound's enterprises and bytes, and refuses one more of either", async (_, of) => {
    const count = of.enterprises.length;
    // Each case takes the path its name says.
    const fast = readCustomersJson(new TextEncoder().encode(JSON.stringify(of.enterprises)), unbounded);
    expect(E.isRight(fast) && O.isSome(fast.right)).toBe(of === SMALL);
    const bytes = bytesOf(await list(of, unbounded));
    expect(bytes).toBeGreaterThan(count * 290);
    expect(countOf(await list(of, { enterprises: count, replyBytes: bytes }))).toBe(count);
    const overCount = await list(of, { enterprises: count - 1, replyBytes: bytes });
    expect(E.isLeft(overCount) && overCount.left).toEqual(OVER_ENTERPRISES(count - 1));
    const overBytes = await list(of, { enterprises: count, replyBytes: bytes - 1 });
    expect(E.isLeft(overBytes) && overBytes.left).toEqual(OVER_BYTES(bytes - 1));
  });
});
