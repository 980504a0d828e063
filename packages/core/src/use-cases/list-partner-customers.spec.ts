import { describe, expect, it } from "vitest";
import { ApiKey } from "../domain/api-key.js";
import type { Alias } from "../domain/codecs.js";
import { orchestratorGarbage, orchestratorRejected, orchestratorTimedOut } from "../domain/errors.js";
import { createInProcessConnectionChanges } from "../adapters/in-process-connection-changes.js";
import { EVERY_CONNECTION, type ConnectionChangeNotice, type ConnectionChanges } from "../ports/connection-changes.js";
import { aCustomer } from "../../testing/builders.js";
import { createTestWorld, expectLeft, expectRight, TEST_KEYS } from "../../testing/index.js";

const URL_OF_LAB = "https://vco.example.net";

/** A world without a customers cache, with connection "lab" holding `apiKey`, identified by its add unless forced. */
const identifiedWorld = async (apiKey: string = TEST_KEYS.partner, force = false) => {
  const world = createTestWorld({ customersCacheTtlMs: 0 });
  await expectRight(world.service.connections.add({ alias: "lab", orchestratorUrl: URL_OF_LAB, apiKey }, { force }));
  return world;
};

const setup = async (
  apiKey: string = TEST_KEYS.partner,
  ttlMs = 60_000,
  changes: ConnectionChanges = createInProcessConnectionChanges(),
) => {
  const world = createTestWorld({ customersCacheTtlMs: ttlMs, changes });
  await expectRight(
    world.service.connections.add(
      { alias: "Partner", orchestratorUrl: "https://vco.example.net", apiKey },
      { force: true },
    ),
  );
  return world;
};

describe("listPartnerCustomers", () => {
  it("lists the customers of a partner connection", async () => {
    const { service, partnerCustomers } = await setup();
    expect((await expectRight(service.connections.customers("partner"))).items).toEqual(partnerCustomers);
  });

  it("refuses a customer connection as NotAPartner", async () => {
    const { service } = await setup(TEST_KEYS.customer);
    expect(await expectLeft(service.connections.customers("partner"))).toEqual({
      _tag: "NotAPartner",
      alias: "Partner",
    });
  });

  it("passes orchestrator failures through", async () => {
    const { service, orchestrator } = await setup();
    orchestrator.failWith(TEST_KEYS.partner, orchestratorGarbage("not JSON"));
    expect((await expectLeft(service.connections.customers("partner")))._tag).toBe("OrchestratorGarbage");
    const refused = await setup(TEST_KEYS.refused);
    expect((await expectLeft(refused.service.connections.customers("partner")))._tag).toBe("OrchestratorRejected");
  });

  it("answers from the cache until the TTL passes", async () => {
    const { service, orchestrator, clock } = await setup();
    await expectRight(service.connections.customers("partner"));
    clock.advance(59_999);
    await expectRight(service.connections.customers("PARTNER"));
    expect(orchestrator.calls.listPartnerCustomers).toBe(1);
    clock.advance(1);
    await expectRight(service.connections.customers("partner"));
    expect(orchestrator.calls.listPartnerCustomers).toBe(2);
  });

  it("starts no deadline for an answer from the cache (issue 40: a warm answer's per-request work)", async () => {
    const { service, orchestrator } = await setup();
    let deadlines = 0;
    const { startDeadline } = orchestrator;
    orchestrator.startDeadline = () => ((deadlines += 1), startDeadline());
    await expectRight(service.connections.customers("partner"));
    await expectRight(service.connections.customers("partner"));
    expect(deadlines).toBe(1);
  });

  it("shares one orchestrator call among concurrent first requests", async () => {
    const { service, orchestrator } = await setup();
    const gate = orchestrator.pause();
    const pending = Array.from({ length: 100 }, () => service.connections.customers("partner")());
    gate.release();
    const results = await Promise.all(pending);
    expect(results.every((r) => r._tag === "Right")).toBe(true);
    expect(orchestrator.calls.identify).toBe(1);
    expect(orchestrator.calls.listPartnerCustomers).toBe(1);
  });

  it("caches nothing with a TTL of 0", async () => {
    const { service, orchestrator } = await setup(TEST_KEYS.partner, 0);
    await expectRight(service.connections.customers("partner"));
    await expectRight(service.connections.customers("partner"));
    expect(orchestrator.calls.listPartnerCustomers).toBe(2);
  });

  it("does not cache failures", async () => {
    const { service, orchestrator } = await setup();
    orchestrator.failWith(TEST_KEYS.partner, orchestratorGarbage("bad"));
    await expectLeft(service.connections.customers("partner"));
    orchestrator.failWith(TEST_KEYS.partner, undefined);
    await expectRight(service.connections.customers("partner"));
  });

  it("drops the cached list when the connection is updated or deleted", async () => {
    const { service, orchestrator } = await setup();
    await expectRight(service.connections.customers("partner"));
    await expectRight(service.connections.update("partner", { orchestratorUrl: "https://moved.example.net" }));
    await expectRight(service.connections.customers("partner"));
    expect(orchestrator.calls.listPartnerCustomers).toBe(2);
    await expectRight(service.connections.delete("partner"));
    expect((await expectLeft(service.connections.customers("partner")))._tag).toBe("NotFound");
  });

  it("does not cache an answer that was in flight when the connection changed", async () => {
    const { service, orchestrator } = await setup();
    const gate = orchestrator.pause();
    const inFlight = service.connections.customers("partner")();
    await expectRight(
      service.connections.update("partner", { orchestratorUrl: "https://moved.example.net" }, { force: true }),
    );
    gate.release();
    await inFlight;
    await expectRight(service.connections.customers("partner"));
    expect(orchestrator.calls.listPartnerCustomers).toBe(2);
  });

  it("never answers a list cached for an earlier version of the connection, even when its change was not announced", async () => {
    // Another process over the embedded store: its change reaches the repository, and nothing is published here.
    const silent: ConnectionChanges = { publish: async () => undefined, subscribe: () => () => undefined };
    const { service, repository, orchestrator } = await setup(TEST_KEYS.partner, 60_000, silent);
    await expectRight(service.connections.customers("partner"));
    await expectRight(repository.update("partner" as Alias, { apiKey: ApiKey.unsafeFrom(TEST_KEYS.customer) }));
    expect(await expectLeft(service.connections.customers("partner"))).toEqual({
      _tag: "NotAPartner",
      alias: "Partner",
    });
    await expectRight(repository.update("partner" as Alias, { apiKey: ApiKey.unsafeFrom(TEST_KEYS.partner) }));
    await expectRight(service.connections.customers("partner"));
    await expectRight(service.connections.customers("partner"));
    expect(orchestrator.calls.listPartnerCustomers).toBe(2);
  });

  it("drops every cached list, and every load in flight, when changes may have been missed", async () => {
    // Changes as a store that can lose notifications delivers them: here, told by hand.
    const listeners = new Set<(notice: ConnectionChangeNotice) => void>();
    const lossy: ConnectionChanges = {
      publish: async (alias) => listeners.forEach((listener) => listener(alias)),
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const { service, orchestrator } = await setup(TEST_KEYS.partner, 60_000, lossy);
    await expectRight(
      service.connections.add(
        { alias: "Other", orchestratorUrl: "https://other.example.net", apiKey: TEST_KEYS.partner },
        { force: true },
      ),
    );
    await expectRight(service.connections.customers("partner"));
    await expectRight(service.connections.customers("other"));
    const gate = orchestrator.pause();
    await expectRight(
      service.connections.add(
        { alias: "Third", orchestratorUrl: "https://third.example.net", apiKey: TEST_KEYS.partner },
        { force: true },
      ),
    );
    const inFlight = service.connections.customers("third")();
    await new Promise((resolve) => setImmediate(resolve)); // its load has started
    listeners.forEach((listener) => listener(EVERY_CONNECTION));
    gate.release();
    await inFlight;
    expect(orchestrator.calls.listPartnerCustomers).toBe(3);
    for (const alias of ["partner", "other", "third"]) await expectRight(service.connections.customers(alias));
    expect(orchestrator.calls.listPartnerCustomers).toBe(6);
  });

  // Issue 21: one round trip for a partner whose identity is known.
  describe("with the identity the last identification learned", () => {
    it("lists a partner identified by its add at once: one call, no identification", async () => {
      const { service, orchestrator, partnerCustomers } = await identifiedWorld();
      expect(orchestrator.calls).toEqual({ identify: 1, listPartnerCustomers: 0, listApiTokens: 0 });
      expect((await expectRight(service.connections.customers("lab"))).items).toEqual(partnerCustomers);
      expect((await expectRight(service.connections.customers("lab"))).items).toEqual(partnerCustomers);
      expect(orchestrator.calls).toEqual({ identify: 1, listPartnerCustomers: 2, listApiTokens: 0 });
    });

    it("remembers what a validation and a listing learned", async () => {
      const { service, orchestrator } = await identifiedWorld(TEST_KEYS.partner, true);
      await expectRight(service.connections.validate("lab"));
      await expectRight(service.connections.customers("lab"));
      expect(orchestrator.calls).toEqual({ identify: 1, listPartnerCustomers: 1, listApiTokens: 0 });
    });

    it("identifies an unknown key first, then lists; the next listing costs one call", async () => {
      const { service, orchestrator } = await identifiedWorld(TEST_KEYS.partner, true);
      await expectRight(service.connections.customers("lab"));
      expect(orchestrator.calls).toEqual({ identify: 1, listPartnerCustomers: 1, listApiTokens: 0 });
      await expectRight(service.connections.customers("lab"));
      expect(orchestrator.calls).toEqual({ identify: 1, listPartnerCustomers: 2, listApiTokens: 0 });
    });

    it("forgets an identity whose listing is refused, and identifies the key again within the same request", async () => {
      const { service, orchestrator } = await identifiedWorld();
      const moved = [aCustomer({ id: 9, name: "MOVED" })];
      orchestrator.setAccount(TEST_KEYS.partner, {
        apiKey: TEST_KEYS.partner,
        identity: { kind: "partner", partnerId: 99 },
        customers: moved,
      });
      expect((await expectRight(service.connections.customers("lab"))).items).toEqual(moved);
      expect(orchestrator.calls).toEqual({ identify: 2, listPartnerCustomers: 2, listApiTokens: 0 });
      await expectRight(service.connections.customers("lab"));
      expect(orchestrator.calls).toEqual({ identify: 2, listPartnerCustomers: 3, listApiTokens: 0 });
    });

    it("forgets it when the key changes: a customer's key put in a partner's connection is identified, never listed", async () => {
      const { service, orchestrator } = await identifiedWorld();
      await expectRight(service.connections.update("lab", { apiKey: TEST_KEYS.customer }, { force: true }));
      expect(await expectLeft(service.connections.customers("lab"))).toEqual({ _tag: "NotAPartner", alias: "lab" });
      expect(orchestrator.calls).toEqual({ identify: 2, listPartnerCustomers: 0, listApiTokens: 0 });
    });

    it("is not carried to the same key at another orchestrator URL", async () => {
      const { service, orchestrator } = await identifiedWorld();
      await expectRight(
        service.connections.update("lab", { orchestratorUrl: "https://other.example.net" }, { force: true }),
      );
      await expectRight(service.connections.customers("lab"));
      expect(orchestrator.calls).toEqual({ identify: 2, listPartnerCustomers: 1, listApiTokens: 0 });
    });

    it("forgets it when an identification is refused, and keeps it when one got no answer", async () => {
      const { service, orchestrator } = await identifiedWorld();
      orchestrator.failWith(TEST_KEYS.partner, orchestratorTimedOut("no answer"));
      await expectRight(service.connections.validate("lab"));
      orchestrator.failWith(TEST_KEYS.partner, undefined);
      await expectRight(service.connections.customers("lab"));
      expect(orchestrator.calls).toEqual({ identify: 2, listPartnerCustomers: 1, listApiTokens: 0 });
      orchestrator.failWith(TEST_KEYS.partner, orchestratorRejected("revoked"));
      await expectRight(service.connections.validate("lab"));
      orchestrator.failWith(TEST_KEYS.partner, undefined);
      await expectRight(service.connections.customers("lab"));
      expect(orchestrator.calls).toEqual({ identify: 4, listPartnerCustomers: 2, listApiTokens: 0 });
    });
  });
});
