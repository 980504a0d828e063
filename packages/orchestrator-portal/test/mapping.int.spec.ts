import * as E from "fp-ts/lib/Either.js";
import { CUSTOMER_FIELDS, Customer } from "@sdwan-connections/core";
import {
  NULLABLE_ENTERPRISE_FIELDS,
  startOrchestratorSimulator,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPortalOrchestrator, type PortalOrchestrator } from "../src/index.js";
import { expectedCustomer } from "./expected-customer.js";
import { targetFor } from "./helpers.js";

describe("mapping every field of every sample enterprise", () => {
  let simulator: OrchestratorSimulator;
  let orchestrator: PortalOrchestrator;

  beforeAll(async () => {
    simulator = await startOrchestratorSimulator();
    orchestrator = createPortalOrchestrator({ allowedHosts: undefined });
  });
  afterAll(async () => {
    orchestrator.close();
    await simulator.stop();
  });

  it("maps each partner's enterprises as ORCHESTRATOR.md says", async () => {
    for (const partner of simulator.data.partners) {
      const target = targetFor(simulator.url, partner.keys[0] as string);
      const customers = await orchestrator.listPartnerCustomers(target, partner.enterpriseProxyId)();
      if (E.isLeft(customers)) throw new Error(customers.left.reason);
      expect(customers.right.items).toHaveLength(partner.enterprises.length);
      customers.right.items.forEach((customer, i) => {
        const raw = partner.enterprises[i] as Record<string, unknown>;
        expect(Object.keys(customer)).toEqual(CUSTOMER_FIELDS);
        expect(Customer.is(customer)).toBe(true);
        expect(customer).toEqual(expectedCustomer(raw));
      });
    }
  });

  it("exercises the interesting cases: nulls, missing fields, all flags, rounding", async () => {
    const all = [];
    for (const partner of simulator.data.partners) {
      const customers = await orchestrator.listPartnerCustomers(
        targetFor(simulator.url, partner.keys[0] as string),
        partner.enterpriseProxyId,
      )();
      if (E.isRight(customers)) all.push(...customers.right.items);
    }
    expect(all.some((c) => c.description === "")).toBe(true);
    expect(all.some((c) => c.accountNumber === "")).toBe(true);
    expect(all.some((c) => c.locale === "")).toBe(true);
    expect(all.some((c) => c.gatewayPoolId === null)).toBe(true);
    expect(new Set(all.map((c) => c.alertsEnabled))).toEqual(new Set([true, false, null]));
    expect(new Set(all.map((c) => c.bastionState))).toEqual(
      new Set(["UNCONFIGURED", "STAGE_REQUESTED", "UNSTAGE_REQUESTED", "STAGED", "UNSTAGED"]),
    );
    for (const c of all) {
      for (const coordinate of [c.latitude, c.longitude]) {
        if (coordinate !== null) expect(Math.abs(coordinate * 1e6 - Math.round(coordinate * 1e6))).toBeLessThan(1e-6);
      }
    }
    expect(all.some((c) => c.latitude === null)).toBe(true);
  });

  it("is given nulls as real orchestrators send them, in every field the simulator documents, and absent fields", () => {
    const enterprises = simulator.data.partners.flatMap((partner) => partner.enterprises);
    const nulled = new Set(enterprises.flatMap((e) => Object.keys(e).filter((field) => e[field] === null)));
    expect(nulled).toEqual(new Set(NULLABLE_ENTERPRISE_FIELDS));
    expect(enterprises.some((e) => !("gatewayPoolId" in e))).toBe(true);
  });
});
