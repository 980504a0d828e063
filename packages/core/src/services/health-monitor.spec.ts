import { describe, expect, it } from "vitest";
import { createCore } from "./core.js";
import { orchestratorTimedOut } from "../domain/errors.js";
import { createHealthMonitor, type HealthChange } from "./health-monitor.js";
import { createInMemoryHealthLedger } from "../adapters/memory-health-ledger.js";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import type { HealthLedger } from "../ports/health-ledger.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import { expectRight, TEST_KEYS } from "../../testing/index.js";
import { createInMemoryOrchestrator } from "../../testing/in-memory-orchestrator.js";

const HOUR = 3_600_000;

// Two "instances" over one store (one repository, one ledger), as two service processes over PostgreSQL.
/** Runs tasks 5 ms late, as a call over a network or a write to disk is, counting how many wait at once. */
const slowAndCounted = () => {
  let running = 0;
  let most = 0;
  return {
    run: async <A>(task: () => Promise<A>): Promise<A> => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((done) => setTimeout(done, 5));
      running -= 1;
      return task();
    },
    mostAtOnce: () => most,
  };
};

const world = () => {
  const storage = createInMemoryStorage();
  const orchestrator = createInMemoryOrchestrator([
    { apiKey: TEST_KEYS.partner, identity: { kind: "partner", partnerId: 7 }, customers: [] },
    { apiKey: TEST_KEYS.customer, identity: { kind: "customer", customerId: 342 } },
  ]);
  // Slow, and counting how many checks run at once.
  const checks = slowAndCounted();
  const slow: Orchestrator = {
    ...orchestrator,
    identify: (target, deadline) => () => checks.run(orchestrator.identify(target, deadline)),
  };
  const changes: HealthChange[] = [];
  const instance = () =>
    createCore({
      storage,
      orchestrator: slow,
      health: { intervalMs: HOUR, onChange: (change) => void changes.push(change) },
    });
  return {
    repository: storage.repository,
    orchestrator,
    slow,
    instances: [instance(), instance()],
    changes,
    mostAtOnce: checks.mostAtOnce,
  };
};

describe("background health", () => {
  it("checks every connection once per interval across instances, a few at a time, and tells each state", async () => {
    const { orchestrator, instances, mostAtOnce } = world();
    const [one, two] = instances as [ReturnType<typeof createCore>, ReturnType<typeof createCore>];
    expect(await expectRight(one.health.list())).toEqual([]);
    for (let i = 0; i < 10; i += 1)
      await expectRight(
        one.connections.add(
          { alias: `c${i}`, orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.partner },
          { force: true },
        ),
      );
    await expectRight(
      one.connections.add(
        { alias: "refused", orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.refused },
        { force: true },
      ),
    );
    await expectRight(
      one.connections.add(
        { alias: "slow", orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.customer },
        { force: true },
      ),
    );
    orchestrator.failWith(TEST_KEYS.customer, orchestratorTimedOut("no answer within 10000 ms"));
    expect((await expectRight(two.health.list())).every((health) => health.state === "unknown")).toBe(true);

    orchestrator.calls.identify = 0;
    await Promise.all([one.health.monitor?.round(), two.health.monitor?.round(), one.health.monitor?.round()]);
    expect(orchestrator.calls.identify).toBe(12);
    expect(mostAtOnce()).toBeLessThanOrEqual(4 * 2); // two instances, four each
    const states = Object.fromEntries(
      (await expectRight(two.health.list())).map((health) => [health.alias, health.state]),
    );
    expect(states).toMatchObject({ c0: "valid", c9: "valid", refused: "invalid", slow: "unreachable" });
    const [slow] = (await expectRight(one.health.list())).filter((health) => health.alias === "slow");
    expect(slow?.checks).toEqual([
      {
        at: expect.any(Date),
        outcome: "unreachable",
        latencyMs: expect.any(Number),
        reason: "no answer within 10000 ms",
      },
    ]);
  });

  it("hears, logs through onChange and audits each change of state, and only changes", async () => {
    const { orchestrator, instances, changes } = world();
    const [one] = instances as [ReturnType<typeof createCore>];
    await expectRight(
      one.connections.add(
        { alias: "lab", orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.partner },
        { force: true },
      ),
    );
    const monitor = createCore({
      storage: createInMemoryStorage(),
      orchestrator,
    }).health.monitor;
    expect(monitor).toBeUndefined(); // no interval, no checks
    await one.health.monitor?.round();
    expect(changes.map(({ alias, from, to }) => `${alias}: ${from} → ${to}`)).toEqual(["lab: unknown → valid"]);
    const audited = (await expectRight(one.audit.list({ alias: "lab" }))).entries.filter(
      (entry) => entry.action === "health-change",
    );
    expect(audited).toMatchObject([{ actor: "health-monitor", alias: "lab", detail: "unknown → valid" }]);
  });

  it("claims connections ahead of their checks, so that a ledger that batches its writes gets many claims at once", async () => {
    const { repository, orchestrator, slow, instances, mostAtOnce } = world();
    const [one] = instances as [ReturnType<typeof createCore>];
    for (let i = 0; i < 40; i += 1)
      await expectRight(
        one.connections.add(
          { alias: `c${i}`, orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.partner },
          { force: true },
        ),
      );
    const memory = createInMemoryHealthLedger();
    // A ledger whose claims take a while, as a write to a file or a database does; counting how many wait at once.
    const claims = slowAndCounted();
    const ledger: HealthLedger = { ...memory, claim: (alias, window) => () => claims.run(memory.claim(alias, window)) };
    orchestrator.calls.identify = 0;
    await createHealthMonitor({ repository, orchestrator: slow, ledger, intervalMs: HOUR, lookahead: 16 }).round();
    expect(orchestrator.calls.identify).toBe(40);
    expect((await expectRight(memory.list())).every((health) => health.state === "valid")).toBe(true);
    expect(claims.mostAtOnce()).toBe(16);
    expect(mostAtOnce()).toBe(4);
  });
});
