import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { startSimulatorProcess } from "@sdwan-connections/bench-kit";
import { createCore, type Alias } from "@sdwan-connections/core";
import { aConnection } from "@sdwan-connections/core/testing";
import { createPortalOrchestrator } from "@sdwan-connections/orchestrator-portal";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { runUpdatingProcess, startAddingProcess } from "./processes.js";
import { MASTER_KEY, keyringOf, openOrThrow, run, temporaryDirectory } from "./support.js";
import { createLowdbConnectionRepository } from "../src/connection-repository.js";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";

const env = { SDWAN_MASTER_KEY: MASTER_KEY.toString("base64") };
const storedAliases = async (dataDir: string): Promise<string[]> =>
  (
    JSON.parse(await readFile(join(dataDir, "connections.json"), "utf8")) as { connections: { alias: string }[] }
  ).connections.map((c) => c.alias);

describe("several processes on one file", () => {
  it("loses no add when two processes and this one add at once", async () => {
    await using directory = await temporaryDirectory();
    const file = await openOrThrow({ dataDir: directory.path, keyring: keyringOf() });
    const repository = createLowdbConnectionRepository(file);
    const children = [
      startAddingProcess(directory.path, "one", 150, 4, env),
      startAddingProcess(directory.path, "two", 150, 4, env),
    ];
    await Promise.all(children.map((child) => child.ready));
    const mine = Array.from({ length: 150 }, (_, i) => `here-${i}`);
    await Promise.all(mine.map((a) => run(repository.insert(aConnection({ alias: a })))));
    const exits = await Promise.all(children.map((child) => child.exited));
    expect(exits.map((exit) => [exit.code, exit.stderr])).toEqual([
      [0, ""],
      [0, ""],
    ]);
    const expected = [...mine, ...children.flatMap((child) => child.acknowledged)];
    expect(expected).toHaveLength(450);
    expect((await storedAliases(directory.path)).sort()).toEqual(expected.sort());
    // This process's in-memory view catches up with the others' writes.
    expect((await run(repository.list())).length).toBe(450);
    expect((await run(repository.get("two-149" as Alias))).apiKey.reveal()).toBe("key-of-two-149");
    await file.close();
  });

  it("a key changed by another process is seen by this one's next customers request, whatever the cache's TTL", async () => {
    await using directory = await temporaryDirectory();
    // The simulator's one partner (`--generate 1:3`) and a customer key of it.
    const [partnerKey, customerKey] = ["generated-partner-key-1", "generated-customer-key-1-1"];
    const simulator = await startSimulatorProcess(3);
    const orchestrator = createPortalOrchestrator({ allowedHosts: undefined });
    const storage = await run(openLowdbStorage({ dataDir: directory.path, keyring: keyringOf(), lockStaleMs: 2000 }));
    // As the service wires it: the store's changes, the default customers cache TTL (a minute).
    const service = createCore({ storage, orchestrator });
    try {
      await run(
        storage.repository.insert(aConnection({ alias: "lab", orchestratorUrl: simulator.url, apiKey: partnerKey })),
      );
      expect((await run(service.connections.customers("lab"))).count).toBe(3);
      expect(await runUpdatingProcess(directory.path, "lab", customerKey, env)).toEqual({ code: 0, stderr: "" });
      expect(await service.connections.customers("lab")()).toEqual(E.left({ _tag: "NotAPartner", alias: "lab" }));
      expect(await runUpdatingProcess(directory.path, "lab", partnerKey, env)).toEqual({ code: 0, stderr: "" });
      expect((await run(service.connections.customers("lab"))).count).toBe(3);
    } finally {
      await service.dispose();
      await storage.close();
      orchestrator.close();
      simulator.child.kill();
    }
    // Three processes start here (the simulator, two updates), each compiling its sources: slow on a loaded machine.
  }, 120_000);

  it("after a SIGKILL in the middle of a write storm, the file loads and holds every acknowledged add", async () => {
    await using directory = await temporaryDirectory();
    // Starts the file with some bulk so that each write takes a while.
    const seed = await openOrThrow({ dataDir: directory.path });
    const seedRepository = createLowdbConnectionRepository(seed);
    await Promise.all(
      Array.from({ length: 2000 }, (_, i) => run(seedRepository.insert(aConnection({ alias: `seed-${i}` })))),
    );
    await seed.close();

    const storm = startAddingProcess(directory.path, "storm", 100_000, 16, env);
    await storm.acknowledgedAtLeast(300);
    // Acks arrive in a burst right after a write; a random pause makes the kill land anywhere in the next ones.
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 40));
    storm.child.kill("SIGKILL");
    const exit = await storm.exited;
    expect(exit.signal).toBe("SIGKILL");
    const acknowledged = [...storm.acknowledged];
    expect(acknowledged.length).toBeGreaterThanOrEqual(300);

    const reopened = await openOrThrow({ dataDir: directory.path });
    const repository = createLowdbConnectionRepository(reopened);
    const stored = new Set((await run(repository.list())).map((c) => c.alias as string));
    expect(acknowledged.filter((a) => !stored.has(a))).toEqual([]);
    expect(stored.size).toBeGreaterThanOrEqual(2000 + acknowledged.length);
    const last = acknowledged.at(-1) as string;
    expect((await run(repository.get(last as Alias))).apiKey.reveal()).toBe(`key-of-${last}`);
    // The dead writer's lock goes stale and is taken over: the store stays writable.
    await run(repository.insert(aConnection({ alias: "after-the-crash" })));
    expect((await storedAliases(directory.path)).includes("after-the-crash")).toBe(true);
    // A temporary file the dead writer left is cleaned up by the next write.
    expect((await readdir(directory.path)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    await reopened.close();
  });
});
