import { describe, expect, it } from "vitest";
import { createCore } from "./core.js";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import { parseKeyExpiryDetail } from "../domain/key-expiry.js";
import { createManualClock, expectRight, TEST_KEYS } from "../../testing/index.js";
import { createInMemoryOrchestrator } from "../../testing/in-memory-orchestrator.js";
import { aJwt } from "../../testing/builders.js";

const DAY = 24 * 3_600_000;
const START = Date.UTC(2026, 10, 1);

// Two instances over one store, with background health (hourly) or without; one clock.
const world = (healthIntervalMs?: number) => {
  const storage = createInMemoryStorage();
  const orchestrator = createInMemoryOrchestrator([
    { apiKey: TEST_KEYS.partner, identity: { kind: "partner", partnerId: 7 }, customers: [] },
  ]);
  const clock = createManualClock(START);
  const instance = () =>
    createCore({
      storage,
      orchestrator,
      clock,
      ...(healthIntervalMs === undefined ? {} : { health: { intervalMs: healthIntervalMs } }),
    });
  const [one, two] = [instance(), instance()];
  const warnings = async () =>
    (await expectRight(one.audit.list({ limit: "1000" }))).entries
      .filter((entry) => entry.action === "key-expiring" || entry.action === "key-expired")
      .map((entry) => ({
        alias: entry.alias,
        action: entry.action,
        actor: entry.actor,
        outcome: entry.outcome,
        ...parseKeyExpiryDetail(entry.detail),
      }))
      .reverse();
  return { storage, clock, orchestrator, one, two, warnings };
};

const add = (service: ReturnType<typeof createCore>, alias: string, extra: Record<string, unknown> = {}) =>
  expectRight(
    service.connections.add(
      { alias, orchestratorUrl: "https://vco.example.net/", apiKey: TEST_KEYS.partner, ...extra },
      { force: true },
    ),
  );

describe("key-expiry warnings", () => {
  it("warns at each threshold once, and at expiry, whichever instance scans, however often", async () => {
    const { clock, one, two, warnings } = world();
    await add(one, "lab", { apiKeyExpiresAt: new Date(START + 40 * DAY).toISOString() });
    const scanBoth = async () => {
      await Promise.all([
        one.health.keyExpiry.scanNow(),
        two.health.keyExpiry.scanNow(),
        one.health.keyExpiry.scanNow(),
      ]);
    };
    await scanBoth();
    expect(await warnings()).toEqual([]);
    for (const days of [10, 1, 1, 20, 1, 5, 1, 1, 1]) {
      clock.advance(days * DAY);
      await scanBoth();
    }
    expect(
      (await warnings()).map(({ action, threshold, daysLeft, source }) => ({ action, threshold, daysLeft, source })),
    ).toEqual([
      { action: "key-expiring", threshold: 30, daysLeft: 30, source: "declared" },
      { action: "key-expiring", threshold: 7, daysLeft: 7, source: "declared" },
      { action: "key-expiring", threshold: 1, daysLeft: 1, source: "declared" },
      { action: "key-expired", threshold: 0, daysLeft: 0, source: "declared" },
    ]);
    expect(
      (await warnings()).every(
        (warning) => warning.actor === "key-expiry" && warning.alias === "lab" && warning.outcome === "succeeded",
      ),
    ).toBe(true);
  });

  it("warns only for the most urgent threshold when it is first seen late, and again for a new key", async () => {
    const { clock, one, warnings } = world();
    await add(one, "lab", { apiKeyExpiresAt: new Date(START + 5 * DAY).toISOString() });
    await one.health.keyExpiry.scanNow();
    expect((await warnings()).map((warning) => warning.threshold)).toEqual([7]);
    // A new key, without a declared expiry, but a JWT whose exp is 3 days away.
    await expectRight(
      one.connections.update("lab", { apiKey: aJwt({ exp: (START + 3 * DAY) / 1000 }) }, { force: true }),
    );
    clock.advance(1);
    await one.health.keyExpiry.scanNow();
    expect((await warnings()).map(({ threshold, source }) => ({ threshold, source }))).toEqual([
      { threshold: 7, source: "declared" },
      { threshold: 7, source: "token" },
    ]);
  });

  it("is made by the background health rounds when they run, and the scan then only counts", async () => {
    const { one, two, warnings } = world(3_600_000);
    await add(one, "lab", { apiKeyExpiresAt: new Date(START + 6 * DAY).toISOString() });
    await add(one, "far", { apiKeyExpiresAt: new Date(START + 20 * DAY).toISOString() });
    await add(one, "none");
    await one.health.keyExpiry.scanNow();
    expect(await warnings()).toEqual([]);
    expect(one.health.keyExpiry.counts()).toEqual({ within7Days: 1, within30Days: 2 });
    await Promise.all([one.health.monitor?.round(), two.health.monitor?.round()]);
    const made = (await warnings()).map(({ alias, threshold }) => ({ alias, threshold }));
    expect(made.sort((a, b) => String(a.alias).localeCompare(String(b.alias)))).toEqual([
      { alias: "far", threshold: 30 },
      { alias: "lab", threshold: 7 },
    ]);
    await Promise.all([one.health.monitor?.round(), two.health.monitor?.round()]);
    expect(await warnings()).toHaveLength(2);
  });

  it("keeps the counts current with the writes of its instance", async () => {
    const { one } = world();
    await add(one, "lab", { apiKeyExpiresAt: new Date(START + 6 * DAY).toISOString() });
    expect(one.health.keyExpiry.counts()).toEqual({ within7Days: 1, within30Days: 1 });
    await expectRight(
      one.connections.update("lab", { apiKeyExpiresAt: new Date(START + 25 * DAY).toISOString() }, { force: true }),
    );
    expect(one.health.keyExpiry.counts()).toEqual({ within7Days: 0, within30Days: 1 });
    await expectRight(one.connections.delete("lab"));
    expect(one.health.keyExpiry.counts()).toEqual({ within7Days: 0, within30Days: 0 });
  });

  it("asks the orchestrator's token list once per key that is one of its tokens, warns from it (source orchestrator), and a key without the right stays valid with no expiry", async () => {
    const { one, orchestrator, warnings } = world(3_600_000);
    const listed = aJwt({ tokenUuid: "9c1b" });
    const unlisted = aJwt({ tokenUuid: "4e2a" });
    orchestrator.setAccount(listed, {
      identity: { kind: "partner", partnerId: 7 },
      apiKey: listed,
      apiTokens: [{ id: 1, tokenUuid: "9c1b", expiresAt: new Date(START + 6 * DAY) }],
    });
    orchestrator.setAccount(unlisted, { identity: { kind: "customer", customerId: 342 }, apiKey: unlisted }); // no right to read tokens
    await add(one, "listed", { apiKey: listed });
    await add(one, "unlisted", { apiKey: unlisted });
    await add(one, "opaque");
    expect(orchestrator.calls.listApiTokens).toBe(0); // never on a write
    for (let round = 0; round < 3; round += 1) {
      await one.health.monitor?.round();
      await one.health.keyExpiry.scanNow();
    }
    expect(orchestrator.calls.listApiTokens).toBe(2); // once per token key; the opaque key is never asked about
    expect((await warnings()).map(({ alias, threshold, source }) => ({ alias, threshold, source }))).toEqual([
      { alias: "listed", threshold: 7, source: "orchestrator" },
    ]);
    expect(await expectRight(one.connections.describe("listed"))).toMatchObject({
      apiKeyExpiry: { expiresAt: new Date(START + 6 * DAY), source: "orchestrator" },
    });
    const refused = await expectRight(one.connections.validate("unlisted"));
    expect(refused).toMatchObject({ valid: true, apiKeyExpiry: undefined });
    expect(one.health.keyExpiry.counts()).toEqual({ within7Days: 1, within30Days: 1 });
  });

  describe("service tokens (SPEC §11: warned before expiry like keys)", () => {
    const token = (id: string, name: string, expiresAt: number) => ({
      id,
      name,
      role: "viewer" as const,
      lifetimeDays: 40,
      expiresAt: new Date(expiresAt),
      lastUsedAt: null,
      createdBy: "admin",
      createdAt: new Date(START),
    });
    const tokenWarnings = async (service: ReturnType<typeof createCore>) =>
      (await expectRight(service.audit.list({ limit: "1000" }))).entries
        .filter((entry) => entry.action.startsWith("token-"))
        .map(({ action, alias, actor, outcome, detail }) => ({ action, alias, actor, outcome, detail }))
        .reverse();

    it("warns at each threshold once and at expiry, whichever instance scans, with or without background health; a renewal starts again", async () => {
      for (const healthIntervalMs of [undefined, 3_600_000]) {
        const { storage, clock, one, two } = world(healthIntervalMs);
        // Named like a connection the watch also warns of: neither's claims hide the other's warnings.
        const id = "00000000-0000-4000-8000-000000000001";
        await expectRight(storage.serviceTokens.create(token(id, "lab", START + 40 * DAY), "a".repeat(64)));
        await add(one, "lab", { apiKeyExpiresAt: new Date(START + 40 * DAY).toISOString() });
        const scanBoth = () =>
          Promise.all([one.health.keyExpiry.scanNow(), two.health.keyExpiry.scanNow(), one.health.keyExpiry.scanNow()]);
        await scanBoth();
        for (const days of [10, 1, 1, 20, 1, 5, 1, 1, 1, 1]) {
          clock.advance(days * DAY);
          await scanBoth();
        }
        const expected = [
          [30, 30],
          [7, 7],
          [1, 1],
          [0, 0],
        ].map(([daysLeft, threshold]) => ({
          action: threshold === 0 ? "token-expired" : "token-expiring",
          alias: null,
          actor: "key-expiry",
          outcome: "succeeded",
          detail: `token:lab expiresAt=${new Date(START + 40 * DAY).toISOString()} daysLeft=${daysLeft} threshold=${threshold}`,
        }));
        expect(await tokenWarnings(one)).toEqual(expected);
        // The connection of the same name was warned of too (with background health, by its rounds, not run here).
        if (healthIntervalMs === undefined)
          expect(
            (await expectRight(one.audit.list({ limit: "1000" }))).entries.filter(
              ({ action }) => action === "key-expired",
            ),
          ).toHaveLength(1);

        // A renewal: a new expiry, whose thresholds are warned of again.
        await expectRight(
          storage.serviceTokens.renew(id, {
            hash: "b".repeat(64),
            expiresAt: new Date(clock.now() + 5 * DAY),
            previousUntil: new Date(clock.now()),
          }),
        );
        await scanBoth();
        expect(
          (await tokenWarnings(two)).slice(4).map(({ action, detail }) => `${action} ${detail?.split(" ").at(-1)}`),
        ).toEqual(["token-expiring threshold=7"]);
        await Promise.all([one.dispose(), two.dispose()]);
      }
    });
  });
});
