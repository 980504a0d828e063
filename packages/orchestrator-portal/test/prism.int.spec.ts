import * as E from "fp-ts/lib/Either.js";
import { CUSTOMER_FIELDS, Customer } from "@sdwan-connections/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPortalOrchestrator, Enterprise, type PortalOrchestrator } from "../src/index.js";
import { targetFor } from "./helpers.js";
import { preferringFetch, startPrismMock, type PrismMock } from "./support/prism.js";

const PARTNER_CHECK = "enterpriseProxy/getEnterpriseProxyProperty";
const CUSTOMER_CHECK = "enterprise/getEnterprise";
const LISTING = "enterpriseProxy/getEnterpriseProxyEnterprises";

const json = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};
const integerField = (body: string, field: string): number | undefined => {
  const value = (json(body) as Record<string, unknown> | undefined)?.[field];
  return Number.isInteger(value) ? (value as number) : undefined;
};

// An independent check: a mock that Stoplight Prism generates from the vendor's Swagger, not our simulator.
describe("the client against a Prism mock of the vendor's Swagger", () => {
  let prism: PrismMock;
  let orchestrator: PortalOrchestrator;
  const recorder = preferringFetch();
  const target = () => targetFor(prism.url, "prism-key");
  const answerOf = (method: string) => recorder.answers.findLast((answer) => answer.method === method);

  beforeAll(async () => {
    prism = await startPrismMock();
    orchestrator = createPortalOrchestrator({ fetch: recorder.fetch, allowedHosts: undefined, timeoutMs: 5_000 });
  }, 90_000);
  afterAll(async () => {
    orchestrator.close();
    await prism[Symbol.asyncDispose]();
  });
  beforeEach(() => {
    recorder.prefer.clear();
    recorder.answers.length = 0;
  });

  it("static examples: the partner check's example is a partner, and its enterprises decode and map", async () => {
    const identity = await orchestrator.identify(target())();
    expect(integerField(answerOf(PARTNER_CHECK)?.body ?? "", "enterpriseProxyId")).toBe(0);
    expect(identity).toEqual(E.right({ kind: "partner", partnerId: 0 }));

    const customers = await orchestrator.listPartnerCustomers(target(), 0)();
    if (E.isLeft(customers)) throw new Error(customers.left.reason);
    expect(customers.right.items.length).toBeGreaterThan(0);
    for (const customer of customers.right.items) {
      expect(Object.keys(customer)).toEqual(CUSTOMER_FIELDS);
      expect(Customer.is(customer)).toBe(true);
    }
  });

  it("dynamic examples: every listing decodes and maps, or is garbage exactly when an enterprise breaks the mapping's needs", async () => {
    recorder.prefer.set(LISTING, "dynamic=true");
    const tally = { mapped: 0, garbage: 0 };
    for (let i = 0; i < 20; i += 1) {
      const customers = await orchestrator.listPartnerCustomers(target(), 1)();
      const items = json(answerOf(LISTING)?.body ?? "") as unknown[];
      const decodable = Array.isArray(items) && items.every((item) => E.isRight(Enterprise.decode(item)));
      if (decodable) {
        if (E.isLeft(customers)) throw new Error(customers.left.reason);
        expect(customers.right.items).toHaveLength(items.length);
        for (const customer of customers.right.items)
          expect(Customer.is(customer) && Object.keys(customer)).toEqual(CUSTOMER_FIELDS);
        tally.mapped += 1;
      } else {
        expect(E.isLeft(customers) && customers.left._tag).toBe("OrchestratorGarbage");
        tally.garbage += 1;
      }
    }
    expect(tally.mapped + tally.garbage).toBe(20);
  });

  it("dynamic examples: identification follows what the two checks answered", async () => {
    recorder.prefer.set(PARTNER_CHECK, "dynamic=true");
    recorder.prefer.set(CUSTOMER_CHECK, "dynamic=true");
    for (let i = 0; i < 10; i += 1) {
      const identity = await orchestrator.identify(target())();
      const partnerId = integerField(answerOf(PARTNER_CHECK)?.body ?? "", "enterpriseProxyId");
      const customerId = integerField(answerOf(CUSTOMER_CHECK)?.body ?? "", "id");
      if (partnerId !== undefined) expect(identity).toEqual(E.right({ kind: "partner", partnerId }));
      else if (customerId !== undefined) expect(identity).toEqual(E.right({ kind: "customer", customerId }));
      else expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorGarbage");
    }
  });

  it.each(["code=400", "code=500"])(
    "a partner check forced to %s means 'not a partner': the key is a customer",
    async (prefer) => {
      recorder.prefer.set(PARTNER_CHECK, prefer);
      const identity = await orchestrator.identify(target())();
      expect(answerOf(PARTNER_CHECK)?.status).toBe(Number(prefer.slice(5)));
      expect(json(answerOf(PARTNER_CHECK)?.body ?? "")).toMatchObject({ error: { code: expect.any(Number) } });
      expect(identity).toEqual(E.right({ kind: "customer", customerId: 0 }));
    },
  );

  // A 400 is the orchestrator's refusal, asked once; a 500 ("Error parsing or processing request") its failure, retried (issue 21).
  it.each([
    ["code=400", "OrchestratorRejected", 2],
    ["code=500", "OrchestratorFailed", 6],
  ])("both checks forced to %s: %s, after %i answers", async (prefer, tag, answers) => {
    recorder.prefer.set(PARTNER_CHECK, prefer);
    recorder.prefer.set(CUSTOMER_CHECK, prefer);
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left._tag).toBe(tag);
    expect(recorder.answers).toHaveLength(answers);
  });

  it.each([
    ["code=400", "OrchestratorRejected", 1],
    ["code=500", "OrchestratorFailed", 3],
  ])("a listing forced to %s: %s, after %i answers", async (prefer, tag, answers) => {
    recorder.prefer.set(LISTING, prefer);
    const customers = await orchestrator.listPartnerCustomers(target(), 0)();
    expect(E.isLeft(customers) && customers.left._tag).toBe(tag);
    expect(recorder.answers).toHaveLength(answers);
  });
});
