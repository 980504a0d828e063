import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { Core } from "@sdwan-connections/core";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { startPostgres } from "@sdwan-connections/storage-postgres/testing";
import * as E from "fp-ts/lib/Either.js";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeSnippets } from "./fixtures/readme-snippets.js";

// core's README shows an embedder the real stores; core cannot depend on them, the composition already does:
// its README's snippets are compiled and run here, exactly as they are written there.

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const ROOT = join(PACKAGE_DIR, "..", "..");
const PARTNER_KEY = "sample-partner-key-1";

type Embedded = { readonly service: Core; close(): Promise<void> };
interface Snippets {
  embedOverLowdb(dataDir: string): Promise<Embedded>;
  embedOverPostgres(databaseUrl: string, key: Buffer): Promise<Embedded>;
}

/** The compiler's complaints about `files`, with the repository's options: none when they compile. */
const compile = (files: readonly string[]): string => {
  const { config } = ts.readConfigFile(join(ROOT, "tsconfig.json"), (path) => ts.sys.readFile(path));
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT);
  const program = ts.createProgram(files, { ...options, noEmit: true, typeRoots: [join(ROOT, "node_modules/@types")] });
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => "\n",
  });
};

let dir: string;
let snippets: Snippets;
let files: Record<"lowdb" | "postgres", string>;

beforeAll(async () => {
  // The snippets as modules of their own, beside this package's dependencies (the ones an embedder installs).
  dir = await mkdtemp(join(tmpdir(), "sdwan-core-readme-"));
  await symlink(join(PACKAGE_DIR, "node_modules"), join(dir, "node_modules"), "dir");
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const code = await storeSnippets();
  files = { lowdb: join(dir, "lowdb.ts"), postgres: join(dir, "postgres.ts") };
  await writeFile(files.lowdb, code.lowdb);
  await writeFile(files.postgres, code.postgres);
  snippets = {
    ...((await import(pathToFileURL(files.lowdb).href)) as Pick<Snippets, "embedOverLowdb">),
    ...((await import(pathToFileURL(files.postgres).href)) as Pick<Snippets, "embedOverPostgres">),
  };
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe("core's README embedding snippets", () => {
  it("compile as written", () => {
    expect(compile([files.lowdb, files.postgres])).toBe("");
  }, 180_000);

  it("over lowdb: the service validates with the orchestrator, and its audit entry is read back by a second process", async () => {
    await using simulator = await startOrchestratorSimulator();
    const dataDir = join(dir, "data");
    const first = await snippets.embedOverLowdb(dataDir);
    const added = await first.service.connections.add(
      { alias: "lab", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
      { by: { name: "embedder" } },
    )();
    expect(added).toEqual(E.right("added"));
    await first.close();

    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--conditions=sdwan-source",
        "--import",
        "tsx",
        join(PACKAGE_DIR, "test/fixtures/read-audit.ts"),
        files.lowdb,
        dataDir,
      ],
      { cwd: PACKAGE_DIR },
    );
    const page = JSON.parse(stdout) as E.Either<unknown, { entries: readonly Record<string, unknown>[] }>;
    expect(page).toMatchObject(
      E.right({
        entries: [{ action: "add", alias: "lab", actor: "embedder", validation: "valid", outcome: "succeeded" }],
      }),
    );
    expect(stdout).not.toContain(PARTNER_KEY);
  }, 60_000);

  describe("over PostgreSQL", () => {
    let postgres: Awaited<ReturnType<typeof startPostgres>>;
    beforeAll(async () => {
      postgres = await startPostgres({ label: "core-readme" });
    });
    afterAll(() => postgres?.stop());

    it("a second service over the same database drops its cached customers when the first updates the connection", async () => {
      await using simulator = await startOrchestratorSimulator();
      const key = randomBytes(32);
      const [a, b] = [
        await snippets.embedOverPostgres(postgres.connectionString, key),
        await snippets.embedOverPostgres(postgres.connectionString, key),
      ];
      try {
        expect(
          await a.service.connections.add({ alias: "lab", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY })(),
        ).toEqual(E.right("added"));
        const listed = await b.service.connections.customers("lab")();
        expect(E.isRight(listed) && listed.right.count).toBe(180);
        simulator.resetCalls();
        await b.service.connections.customers("lab")();
        expect(simulator.calls.total).toBe(0); // from b's cache

        // Another partner's key: a change, announced to every instance over the store.
        expect(await a.service.connections.update("lab", { apiKey: "sample-partner-key-2" })()).toEqual(
          E.right("updated"),
        );
        await expect
          .poll(
            async () => {
              simulator.resetCalls();
              await b.service.connections.customers("lab")();
              return simulator.calls.total;
            },
            { timeout: 10_000, interval: 200 },
          )
          .toBeGreaterThan(0);
        // Its audit entry is b's to read as well.
        const page = await b.service.audit.list({ alias: "lab" })();
        expect(E.isRight(page) && page.right.entries.map((entry) => entry.action)).toEqual(["update", "add"]);
      } finally {
        await a.close();
        await b.close();
      }
    }, 120_000);
  });
});
