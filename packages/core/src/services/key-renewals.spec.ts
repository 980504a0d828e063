import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { createCore } from "./core.js";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import { ApiKey } from "../domain/api-key.js";
import type { Alias } from "../domain/codecs.js";
import { eventOf } from "../domain/events.js";
import { createManualClock, expectRight } from "../../testing/index.js";
import { createInMemoryOrchestrator } from "../../testing/in-memory-orchestrator.js";
import { aJwt } from "../../testing/builders.js";
import type { RenewalIntent } from "../ports/renewal-ledger.js";

const DAY = 24 * 3_600_000;
const START = Date.UTC(2026, 10, 1);
const URL = "https://orchestrator.example.net/";
const expiringIn = (days: number, uuid: string) => aJwt({ tokenUuid: uuid, exp: (START + days * DAY) / 1000 });
const OLD_PARTNER_UUID = "00000000-0000-4000-8000-000000000500";
const CUSTOMER_KEY = expiringIn(10, "00000000-0000-4000-8000-000000000600");
const PARTNER_KEY = expiringIn(10, OLD_PARTNER_UUID);
const lab = "lab" as Alias;

// A store, an orchestrator knowing a partner key (its token 500 listed) and a customer key, and two service instances.
const world = ({ overlapHours = 0, mayRenew = true } = {}) => {
  const storage = createInMemoryStorage();
  const clock = createManualClock(START);
  const orchestrator = createInMemoryOrchestrator(
    [
      {
        apiKey: PARTNER_KEY,
        identity: { kind: "partner", partnerId: 7 },
        apiTokens: [{ id: 500, tokenUuid: OLD_PARTNER_UUID, expiresAt: new Date(START + 10 * DAY) }],
        mayRenew,
      },
      { apiKey: CUSTOMER_KEY, identity: { kind: "customer", customerId: 5 }, apiTokens: [], mayRenew },
    ],
    { now: clock.now },
  );
  const instance = () =>
    createCore({
      storage,
      orchestrator,
      clock,
      health: { intervalMs: 60_000 },
      keyRenewal: { overlapMs: overlapHours * 3_600_000, leaseMs: 60_000 },
    });
  const [one, two] = [instance(), instance()];
  const add = (apiKey: string, keyRenewal: "auto" | "off" = "auto") =>
    expectRight(one.connections.add({ alias: "lab", orchestratorUrl: URL, apiKey, keyRenewal }));
  const stored = () => expectRight(storage.repository.get(lab));
  const entries = async () => (await expectRight(one.audit.list({ limit: "100" }))).entries;
  const works = async (apiKey: string) =>
    E.isRight(await orchestrator.identify({ orchestratorUrl: URL as never, apiKey: ApiKey.unsafeFrom(apiKey) })());
  return { storage, clock, orchestrator, one, two, add, stored, entries, works };
};
type World = ReturnType<typeof world>;
const round = (service: World["one"]) => service.health.keyRenewal?.round() ?? Promise.resolve();

describe("key renewal (SPEC §12)", () => {
  it("renews a customer key by refresh: validated, swapped in one audited change by `renewal`, its event without the key", async () => {
    const w = world();
    await w.add(CUSTOMER_KEY);
    const before = await w.stored();
    await round(w.one);
    const after = await w.stored();
    expect(w.orchestrator.renewalCalls).toMatchObject({ refreshApiToken: 1, createApiToken: 0 });
    expect(after.apiKey.reveal()).toBe(w.orchestrator.issued[0]?.key);
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.keyRenewal).toBe("auto");
    const [entry] = await w.entries();
    expect(entry).toMatchObject({ action: "key-renew", actor: "renewal", alias: "lab", outcome: "succeeded" });
    const event = eventOf(entry as never);
    expect(E.isRight(E.fromOption(() => 0)(event))).toBe(true);
    expect(JSON.stringify(event)).toContain("connection.key.renewed");
    expect(JSON.stringify([event, await w.entries()])).not.toContain(after.apiKey.reveal());
    expect(await expectRight(w.storage.renewals.list())).toEqual([]);
    // Not due any more: a second round asks nothing.
    await round(w.one);
    expect(w.orchestrator.renewalCalls.refreshApiToken).toBe(1);
  });

  it("renews a partner key: its own user's new token (12 months) downloaded, validated, stored, the old one revoked (overlap 0)", async () => {
    const w = world();
    await w.add(PARTNER_KEY);
    await round(w.one);
    const [made] = w.orchestrator.issued;
    expect(w.orchestrator.renewalCalls).toEqual({
      refreshApiToken: 0,
      createApiToken: 1,
      downloadApiToken: 1,
      revokeApiToken: 1,
    });
    expect(made?.expiresAt.getTime()).toBe(START + 365 * DAY);
    expect((await w.stored()).apiKey.reveal()).toBe(made?.key);
    expect(await w.works(PARTNER_KEY)).toBe(false); // token 500 revoked
    expect(await w.works(made?.key ?? "")).toBe(true);
    expect(await expectRight(w.storage.renewals.list())).toEqual([]);
  });

  it("keeps the old partner token through the overlap, and revokes it at the first round after", async () => {
    const w = world({ overlapHours: 24 });
    await w.add(PARTNER_KEY);
    await round(w.one);
    expect(w.orchestrator.renewalCalls.revokeApiToken).toBe(0);
    expect(await w.works(PARTNER_KEY)).toBe(true);
    w.clock.advance(DAY - 1);
    await round(w.two);
    expect(w.orchestrator.renewalCalls.revokeApiToken).toBe(0);
    w.clock.advance(1);
    await round(w.two);
    expect(w.orchestrator.renewalCalls.revokeApiToken).toBe(1);
    expect(await w.works(PARTNER_KEY)).toBe(false);
  });

  it("renews only keys with `auto` and within the renewal days", async () => {
    const w = world();
    await expectRight(
      w.one.connections.add(
        { alias: "lab", orchestratorUrl: URL, apiKey: expiringIn(31, OLD_PARTNER_UUID), keyRenewal: "auto" },
        { force: true },
      ),
    );
    await expectRight(w.one.connections.add({ alias: "off", orchestratorUrl: URL, apiKey: CUSTOMER_KEY }));
    await round(w.one);
    expect(w.orchestrator.renewalCalls).toEqual({
      refreshApiToken: 0,
      createApiToken: 0,
      downloadApiToken: 0,
      revokeApiToken: 0,
    });
  });

  it("a key without the privilege: renewalFailed with the reason, the connection unchanged, the retries backing off", async () => {
    const w = world({ mayRenew: false });
    await w.add(PARTNER_KEY);
    const before = await w.stored();
    await round(w.one);
    await round(w.two);
    expect(w.orchestrator.renewalCalls.createApiToken).toBe(1); // the second round waits for the back-off
    const failed = (await w.entries()).filter((entry) => entry.action === "key-renewal-failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]?.detail).toContain("right to renew");
    // A failed attempt, as the trail's readers filter them (it said `succeeded`), and still its event.
    expect(failed[0]).toMatchObject({ outcome: "failed", failure: "RenewalFailed" });
    expect(JSON.stringify(eventOf(failed[0] as never))).toContain("connection.key.renewalFailed");
    expect((await w.stored()).version).toBe(before.version);
    expect(await w.works(PARTNER_KEY)).toBe(true);
    w.clock.advance(60_000);
    await round(w.one);
    expect(w.orchestrator.renewalCalls.createApiToken).toBe(2);
    w.clock.advance(60_000); // the second failure waits twice as long
    await round(w.one);
    expect(w.orchestrator.renewalCalls.createApiToken).toBe(2);
  });

  it("two instances racing one renewal make one token", async () => {
    const w = world();
    await w.add(PARTNER_KEY);
    await Promise.all([round(w.one), round(w.two), round(w.one), round(w.two)]);
    expect(w.orchestrator.renewalCalls.createApiToken).toBe(1);
    expect((await w.stored()).apiKey.reveal()).toBe(w.orchestrator.issued[0]?.key);
  });
});

describe("key renewal after a crash at each step (the intent left in the ledger, its lease ended)", () => {
  // The ledger as a crashed instance left it: `intent` recorded, its lease (60 s) taken and never released.
  const crashedAt = async (w: World, intent: Partial<RenewalIntent> & Pick<RenewalIntent, "step">) => {
    const stored = await w.stored();
    const record = await expectRight(
      w.storage.renewals.acquire(lab, "dead", new Date(START), new Date(START + 60_000)),
    );
    const full: RenewalIntent = {
      id: "crashed",
      method: "create",
      identity: { kind: "partner", partnerId: 7 },
      fromVersion: stored.version,
      startedAt: new Date(START),
      oldTokenId: 500,
      ...intent,
    };
    expect(await expectRight(w.storage.renewals.save({ ...record!, intent: full }, "dead"))).toBe(true);
  };
  const target = { orchestratorUrl: URL as never, apiKey: ApiKey.unsafeFrom(PARTNER_KEY) };
  const identity = { kind: "partner", partnerId: 7 } as const;
  const newToken = async (w: World, download: boolean) => {
    const { id } = await expectRight(w.orchestrator.createApiToken(target, identity, { name: "n", lifetimeMs: DAY }));
    const key = download ? await expectRight(w.orchestrator.downloadApiToken(target, identity, id)) : undefined;
    return { id, key };
  };
  // Every token made is stored or revoked, and the connection's key works.
  const settled = async (w: World) => {
    const key = (await w.stored()).apiKey.reveal();
    expect(await w.works(key)).toBe(true);
    for (const token of w.orchestrator.issued) expect(token.state === "revoked" || token.key === key).toBe(true);
    expect((await expectRight(w.storage.renewals.list())).filter((one) => one.intent !== undefined)).toEqual([]);
  };

  it("waits for the dead instance's lease, then finishes: after create (not downloaded), after download", async () => {
    for (const download of [false, true]) {
      const w = world();
      await w.add(PARTNER_KEY);
      const { id } = await newToken(w, download);
      await crashedAt(w, { step: "created", tokenId: id });
      await round(w.one);
      expect(w.orchestrator.renewalCalls.revokeApiToken).toBe(0); // still the dead instance's
      w.clock.advance(60_001);
      await round(w.one);
      await round(w.one); // the renewal starts again, and completes
      await settled(w);
      expect((await w.stored()).apiKey.reveal()).not.toBe(PARTNER_KEY);
    }
  });

  it("after the key was kept (received), after it was stored, and before the old token's revocation", async () => {
    for (const step of ["received", "swapped", "stored"] as const) {
      const w = world();
      await w.add(PARTNER_KEY);
      const { id, key } = await newToken(w, true);
      const fromVersion = (await w.stored()).version;
      if (step !== "received")
        await expectRight(w.storage.repository.update(lab, { apiKey: ApiKey.unsafeFrom(key!.reveal()) }));
      await crashedAt(w, {
        step: step === "stored" ? "stored" : "received",
        tokenId: id,
        fromVersion,
        ...(step === "stored" ? { revokeAt: new Date(START) } : { newKey: key! }),
      });
      w.clock.advance(60_001);
      await round(w.one);
      await settled(w);
      expect((await w.stored()).apiKey.reveal()).toBe(key?.reveal());
      expect(await w.works(PARTNER_KEY)).toBe(false);
    }
  });

  it("a connection deleted while its renewal held the downloaded key: the token made is revoked", async () => {
    const w = world();
    await w.add(PARTNER_KEY);
    const { id, key } = await newToken(w, true);
    await crashedAt(w, { step: "received", tokenId: id, newKey: key!, orchestratorUrl: URL as never });
    await expectRight(w.one.connections.delete("lab"));
    w.clock.advance(60_001);
    await round(w.one);
    expect(w.orchestrator.issued.find((token) => token.id === id)?.state).toBe("revoked");
    expect((await expectRight(w.storage.renewals.list())).filter((one) => one.intent !== undefined)).toEqual([]);
  });

  it("a manual key change while the renewal was held wins: the token made is revoked", async () => {
    const w = world();
    await w.add(PARTNER_KEY);
    const { id, key } = await newToken(w, true);
    await crashedAt(w, { step: "received", tokenId: id, newKey: key! });
    const manual = expiringIn(300, "00000000-0000-4000-8000-000000000700");
    w.orchestrator.setAccount(manual, { apiKey: manual, identity, apiTokens: [] });
    await expectRight(w.one.connections.update("lab", { apiKey: manual }));
    w.clock.advance(60_001);
    await round(w.one);
    expect((await w.stored()).apiKey.reveal()).toBe(manual);
    expect(w.orchestrator.issued.find((token) => token.id === id)?.state).toBe("revoked");
    await settled(w);
  });
});
