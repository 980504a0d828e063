import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { reportFigures } from "@sdwan-connections/bench-kit";
import {
  loadSampleDataset,
  startOrchestratorSimulator,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
import { describe, expect, it, vi } from "vitest";
import { ADMIN, BASE, client, makeDataDir } from "./harness.js";
import { runMain } from "./main-process.js";
import { startWebhookReceiver } from "./webhook-receiver.js";

const CONNECTIONS = `${BASE}/connections`;
const CHANGES = 300;
// Slower than the burst's writes, so that deliveries are pending when a process is killed.
const RECEIVER_MS = 50;
const KEYS = ["sample-partner-key-1", "sample-partner-key-2"] as const;
const EVENT_TYPES = {
  add: "org.sdwan-connections.connection.added",
  update: "org.sdwan-connections.connection.updated",
  delete: "org.sdwan-connections.connection.deleted",
} as const;

type Action = keyof typeof EVENT_TYPES;
interface Change {
  readonly action: Action;
  readonly alias: string;
}
interface AuditEntry extends Change {
  readonly id: string;
  readonly outcome: string;
}
interface AuditPage {
  readonly entries: readonly AuditEntry[];
  readonly next: string | null;
}
type Call = ReturnType<typeof client>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The burst's change `index`: adds of new connections, updates (a new key) and deletes of seeded ones, in turn. */
const changeAt = (index: number): Change =>
  index % 3 === 0
    ? { action: "add", alias: `burst-${index}` }
    : { action: index % 3 === 1 ? "update" : "delete", alias: `seed-${index}` };
const BURST = Array.from({ length: CHANGES }, (_, index) => changeAt(index));

/** The trail's events after audit entry `since` (the changes that happened), oldest first, read a page at a time. */
const eventsSince = async (call: Call, since: string): Promise<AuditEntry[]> => {
  const entries: AuditEntry[] = [];
  for (let before: string | null = ""; before !== null;) {
    const page: AuditPage = (
      await call("GET", `${BASE}/audit?limit=1000${before === "" ? "" : `&before=${encodeURIComponent(before)}`}`)
    ).json<AuditPage>();
    entries.push(...page.entries.filter(({ id }) => id > since));
    before = page.entries.some(({ id }) => id <= since) ? null : page.next;
  }
  return entries.filter(({ action, outcome }) => action in EVENT_TYPES && outcome === "succeeded").reverse();
};

/**
 * One data directory for service processes (`pnpm start`'s main, the embedded store), the orchestrator simulator
 * validating their adds and updates, and an HTTPS receiver (its test CA trusted through
 * SDWAN_ORCHESTRATOR_CA_FILE) that verifies each signature with `standardwebhooks` and takes RECEIVER_MS to answer.
 */
const setUp = async () => {
  const simulator: OrchestratorSimulator = await startOrchestratorSimulator({
    data: await loadSampleDataset(),
    host: "127.0.0.1",
    port: 0,
  });
  const arrivals: { readonly id: string; readonly at: number }[] = [];
  const receiver = await startWebhookReceiver({
    answer: async ({ id }) => {
      arrivals.push({ id, at: Date.now() });
      await sleep(RECEIVER_MS);
      return 200;
    },
  });
  const dir = await makeDataDir();
  const caDir = await makeDataDir();
  const caFile = join(caDir, "receiver-ca.pem");
  await writeFile(caFile, receiver.caCert);
  const env = {
    SDWAN_DATA_DIR: dir,
    SDWAN_ADMIN_USER: ADMIN.name,
    SDWAN_ADMIN_PASSWORD: ADMIN.password,
    SDWAN_ORCHESTRATOR_CA_FILE: caFile,
    // Each attempt is logged at info ("webhook delivery attempt", with its event id): which process delivers.
    SDWAN_LOG_LEVEL: "info",
  };
  const runs: ReturnType<typeof runMain>[] = [];
  const start = async () => {
    const run = runMain(env);
    runs.push(run);
    return { run, call: client(await run.listening()) };
  };
  type Instance = Awaited<ReturnType<typeof start>>;
  /** The newest event `instance` made an attempt to deliver ("" before any). */
  const lastAttempted = ({ run }: Instance) =>
    run
      .out()
      .split("\n")
      .filter((line) => line.includes('"msg":"webhook delivery attempt"'))
      .map((line) => (JSON.parse(line) as { eventId: string }).eventId)
      .reduce((newest, id) => (id > newest ? id : newest), "");
  /** SIGKILL: no drain, no flush, as a crash. */
  const kill = async ({ run }: Instance) => {
    run.child.kill("SIGKILL");
    await run.exited;
  };

  /** The seeded connections the burst updates and deletes, then the webhook (so the seeds have no events). */
  const prepare = async (call: Call) => {
    for (const { alias } of BURST.filter(({ action }) => action !== "add"))
      expect(
        (
          await call("POST", `${CONNECTIONS}?force=true`, {
            body: { alias, orchestratorUrl: simulator.url, apiKey: KEYS[0] },
          })
        ).status,
      ).toBe(200);
    const [last] = (await call("GET", `${BASE}/audit?limit=1`)).json<AuditPage>().entries;
    const created = await call("POST", `${BASE}/webhooks`, {
      body: { url: receiver.url, types: ["connection.added", "connection.updated", "connection.deleted"] },
    });
    expect(created.status).toBe(201);
    receiver.useSecret(created.json<{ secret: string }>().secret);
    return last?.id ?? "";
  };

  /** Makes change `index` through `call`: acknowledged (its 200 or 204), or not when the process died under it. */
  const acknowledged: Change[] = [];
  const change = async (call: Call, index: number) => {
    const { action, alias } = BURST[index] as Change;
    const reply = await (
      action === "add"
        ? call("POST", CONNECTIONS, { body: { alias, orchestratorUrl: simulator.url, apiKey: KEYS[0] } })
        : action === "update"
          ? call("PUT", `${CONNECTIONS}/${alias}`, { body: { apiKey: KEYS[1] } })
          : call("DELETE", `${CONNECTIONS}/${alias}`)
    ).catch(() => undefined);
    if (reply === undefined) return;
    expect(reply.status, `${action} ${alias}`).toBe(action === "delete" ? 204 : 200);
    acknowledged.push({ action, alias });
  };

  /**
   * Waits until every event of the trail after `since` (every change that happened, acknowledged or not) reached
   * the receiver; then checks each acknowledged change has its event and that the first deliveries came in the
   * order of the events' ids. Answers the figures.
   */
  const settle = async (call: Call, since: string) => {
    const trail = await eventsSince(call, since);
    await vi.waitFor(
      () => expect(trail.filter(({ id }) => !receiver.accepted.some((one) => one.id === id))).toEqual([]),
      { timeout: 180_000, interval: 250 },
    );
    const delivered = new Map(receiver.accepted.map(({ id, body }) => [id, body]));
    // Each acknowledged change is in the trail, and its event reached the receiver as that change.
    for (const { action, alias } of acknowledged) {
      const entry = trail.find((one) => one.action === action && one.alias === alias);
      expect(entry, `${action} ${alias}`).toBeDefined();
      expect(delivered.get(entry?.id ?? "")).toMatchObject({ type: EVENT_TYPES[action], subject: alias });
    }
    // Per webhook in order: the first deliveries are the trail's events, ids ascending.
    const ids = trail.map(({ id }) => id);
    expect([...delivered.keys()]).toEqual(ids);
    expect(ids).toEqual([...ids].sort());
    expect(receiver.refused).toEqual([]);
    const pauses = arrivals.slice(1).map(({ at }, index) => at - (arrivals[index]?.at ?? at));
    return {
      changes: CHANGES,
      acknowledged: acknowledged.length,
      events: trail.length,
      delivered: delivered.size,
      lost: trail.length - delivered.size,
      duplicates: receiver.accepted.length - delivered.size,
      // The waits for a killed process's leases to end.
      pauses: pauses.filter((ms) => ms >= 5_000).map((ms) => `${(ms / 1000).toFixed(1)} s`),
    };
  };

  const close = async () => {
    for (const { child } of runs) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.all(runs.map(({ exited }) => exited));
    await receiver[Symbol.asyncDispose]();
    await simulator.stop();
    await Promise.all([dir, caDir].map((path) => rm(path, { recursive: true, force: true })));
  };
  return { receiver, arrivals, start, lastAttempted, kill, prepare, change, settle, close };
};

const HEADER =
  "| service processes | changes | acknowledged | SIGKILLs | events | delivered | lost | duplicates | deliveries paused |\n|---|---|---|---|---|---|---|---|---|";
type Figures = Awaited<ReturnType<Awaited<ReturnType<typeof setUp>>["settle"]>>;
const row = (processes: string, kills: number, figures: Figures) =>
  `| ${processes} | ${figures.changes} | ${figures.acknowledged} | ${kills} | ${figures.events} | ${figures.delivered} | ${figures.lost} | ${figures.duplicates} | ${figures.pauses.join(", ")} |`;

// Each process loads the sources through tsx (seconds on a busy machine); a killed relay's leases end after 30 s.
describe("webhooks on the embedded store through SIGKILLs (service processes)", { timeout: 420_000 }, () => {
  it(`${CHANGES} changes while the process is killed twice (SIGKILL) and restarted on its data directory: every event delivered at least once, in order, duplicates counted`, async () => {
    const world = await setUp();
    try {
      let instance = await world.start();
      const since = await world.prepare(instance.call);
      const kills = [100, 200];
      let acceptedAtStart = 0;
      for (let index = 0; index < CHANGES; index += 1) {
        if (!kills.includes(index)) {
          await world.change(instance.call, index);
          continue;
        }
        // Killed while it delivers (after a restart, that is once its predecessor's leases ended), a write in flight.
        await vi.waitFor(() => expect(world.receiver.accepted.length).toBeGreaterThan(acceptedAtStart), {
          timeout: 60_000,
          interval: 50,
        });
        const inFlight = world.change(instance.call, index);
        await sleep(5);
        await world.kill(instance);
        await inFlight;
        instance = await world.start();
        acceptedAtStart = world.receiver.accepted.length;
      }
      const figures = await world.settle(instance.call, since);
      await reportFigures(
        "reliability:webhook-sigkill-lowdb",
        `${HEADER}\n${row("1, restarted", kills.length, figures)}`,
      );
      expect(figures.lost).toBe(0);
    } finally {
      await world.close();
    }
  });

  it(`two processes on one data directory, ${CHANGES} changes, the delivering one killed (SIGKILL) in the middle: the other delivers what was pending`, async () => {
    const world = await setUp();
    try {
      const [one, two] = await Promise.all([world.start(), world.start()]);
      if (one === undefined || two === undefined) throw new Error("not started");
      const since = await world.prepare(one.call);
      const killAt = CHANGES / 2;
      for (let index = 0; index < killAt; index += 1) await world.change(one.call, index);
      // Both relays look for due deliveries every 500 ms; the one that delivers now holds leases: it is killed.
      await vi.waitFor(() => expect(world.lastAttempted(one) + world.lastAttempted(two)).not.toBe(""), {
        timeout: 60_000,
      });
      const [killed, survivor] = world.lastAttempted(one) > world.lastAttempted(two) ? [one, two] : [two, one];
      const inFlight = world.change(killed.call, killAt);
      await sleep(5);
      await world.kill(killed);
      const killedAt = Date.now();
      await inFlight;
      const arrivedBefore = new Set(world.arrivals.map(({ id }) => id));
      for (let index = killAt + 1; index < CHANGES; index += 1) await world.change(survivor.call, index);
      const figures = await world.settle(survivor.call, since);
      // Events of changes made before the kill that had not reached the receiver: delivered by the survivor.
      const pending = new Set(
        world.receiver.accepted
          .filter(
            ({ id, body }) => !arrivedBefore.has(id) && BURST.findIndex(({ alias }) => alias === body.subject) < killAt,
          )
          .map(({ id }) => id),
      ).size;
      const takeover = world.arrivals.find(({ at }) => at > killedAt);
      await reportFigures(
        "reliability:webhook-sigkill-lowdb-two",
        `${HEADER}\n${row("2, one killed", 1, figures)}\n\nPending when the delivering process was killed: ${pending} events of changes it had acknowledged, delivered by the other, the first of them ${(((takeover?.at ?? killedAt) - killedAt) / 1000).toFixed(1)} s after the kill.`,
      );
      expect(figures.lost).toBe(0);
      expect(pending).toBeGreaterThan(0);
    } finally {
      await world.close();
    }
  });
});
