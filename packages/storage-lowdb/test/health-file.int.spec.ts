import type * as FsPromises from "node:fs/promises";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Alias, HealthCheck } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it, vi } from "vitest";
import { createLowdbHealthLedger, HEALTH_FILE } from "../src/health-file.js";
import { run, temporaryDirectory } from "./support.js";

// Counts the reads of health.json (every other call passes through to the real file system).
const healthReads = vi.hoisted(() => ({ count: 0 }));
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  const count = (path: unknown) => void (String(path).endsWith("/health.json") && (healthReads.count += 1));
  const open: typeof actual.open = (path, flags, mode) => {
    if (flags === undefined || flags === "r") count(path);
    return actual.open(path, flags, mode);
  };
  const readFile = ((path: Parameters<typeof actual.readFile>[0], options?: Parameters<typeof actual.readFile>[1]) => {
    count(path);
    return actual.readFile(path, options);
  }) as typeof actual.readFile;
  return { ...actual, default: { ...actual, open, readFile }, open, readFile };
});

const lab = "lab" as Alias;
const check: HealthCheck = {
  at: new Date("2026-11-24T01:00:00.000Z"),
  outcome: "invalid",
  latencyMs: 7,
  reason: "The orchestrator refused the apiKey.",
};

describe("the embedded store's health states (health.json)", () => {
  it("survive the process that recorded them: a ledger opened later reads them", async () => {
    await using directory = await temporaryDirectory();
    const before = createLowdbHealthLedger({ dataDir: directory.path });
    await run(before.record(lab, check));
    await before.close();
    const after = createLowdbHealthLedger({ dataDir: directory.path });
    expect(await run(after.list())).toEqual([{ alias: "lab", state: "invalid", since: check.at, checks: [check] }]);
    await after.close();
  });

  it("keeps every one of many concurrent checks, each answered the state before it (batched into few writes)", async () => {
    await using directory = await temporaryDirectory();
    const ledger = createLowdbHealthLedger({ dataDir: directory.path });
    const aliases = Array.from({ length: 40 }, (_, i) => `conn-${i % 20}` as Alias);
    const before = await Promise.all(
      aliases.map((alias, i) => run(ledger.record(alias, { ...check, outcome: i < 20 ? "invalid" : "valid" }))),
    );
    expect(before).toEqual([...Array<string>(20).fill("unknown"), ...Array<string>(20).fill("invalid")]);
    const listed = await run(ledger.list());
    expect(listed).toHaveLength(20);
    expect(listed.every((health) => health.state === "valid" && health.checks.length === 2)).toBe(true);
    await ledger.close();
  });

  it("keeps the states in memory between changes: reads the file only when another ledger replaced it", async () => {
    await using directory = await temporaryDirectory();
    const [ledger, other] = [
      createLowdbHealthLedger({ dataDir: directory.path }),
      createLowdbHealthLedger({ dataDir: directory.path }),
    ];
    await run(ledger.record(lab, check));
    healthReads.count = 0;
    for (let window = 1; window <= 5; window += 1) {
      expect(await run(ledger.claim(lab, window))).toBe(true);
      expect(await run(ledger.list())).toHaveLength(1);
    }
    expect(healthReads.count).toBe(0);
    await run(other.record(lab, { ...check, outcome: "valid", reason: null }));
    healthReads.count = 0;
    expect((await run(ledger.list()))[0]).toMatchObject({
      state: "valid",
      checks: [{ outcome: "valid" }, { outcome: "invalid" }],
    });
    expect(await run(ledger.claim(lab, 5))).toBe(false);
    expect(healthReads.count).toBe(1);
    await Promise.all([ledger.close(), other.close()]);
  });

  it("leaves the directory untouched while only read: no file, no lock registration", async () => {
    await using directory = await temporaryDirectory();
    const ledger = createLowdbHealthLedger({ dataDir: directory.path });
    expect(await run(ledger.list())).toEqual([]);
    expect(await readdir(directory.path)).toEqual([]);
    await ledger.close();
  });

  it("refuses a file that is not a health file, naming it and never rewriting it", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, HEALTH_FILE);
    await writeFile(path, JSON.stringify({ connections: { lab: { alias: "lab", state: "great" } }, claims: {} }));
    const ledger = createLowdbHealthLedger({ dataDir: directory.path });
    const listed = await ledger.list()();
    expect(listed).toEqual(
      E.left(
        expect.objectContaining({
          _tag: "StorageFailure",
          reason: expect.stringContaining("health.json is invalid ("),
        }),
      ),
    );
    expect(E.isLeft(await ledger.record(lab, check)())).toBe(true);
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ connections: { lab: { state: "great" } } });
    await ledger.close();
  });
});
