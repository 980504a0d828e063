import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import { storeSnippets } from "./fixtures/readme-snippets.js";

// The library packages as an embedder gets them (core's README, "Install"): packed by `pnpm pack:libraries`,
// installed from the tarballs into an empty npm project, compiled there with tsc (strict, ESM) and run with
// plain node: no workspace, no source condition, no tsx.

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const ROOT = join(PACKAGE_DIR, "..", "..");
const BIN = join(PACKAGE_DIR, "node_modules", ".bin");
const PARTNER_KEY = "sample-partner-key-1";

let project: string;
let tarballs: string[];

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "sdwan-installed-"));
  const packs = join(project, "packs");
  // The test task builds this package's dependencies; its own tarball needs its own build too.
  await run("pnpm", ["run", "build"], { cwd: PACKAGE_DIR });
  await run("pnpm", ["run", "pack:libraries", "--pack-destination", packs], { cwd: ROOT });
  tarballs = (await readdir(packs)).map((name) => join(packs, name));
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "embedder", private: true, type: "module" }));
  await run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      ...tarballs,
      `fp-ts@${packageJson.dependencies["fp-ts"]}`,
    ],
    { cwd: project },
  );
}, 300_000);

afterAll(() => rm(project, { recursive: true, force: true }));

describe("the library packages installed from their tarballs into an empty npm project", () => {
  it("are the seven library packages, with no spec file inside", async () => {
    expect(tarballs.map((path) => path.slice(path.lastIndexOf("/") + 1)).sort()).toEqual(
      [
        "composition",
        "core",
        "orchestrator-portal",
        "outbound-http",
        "secrets",
        "storage-lowdb",
        "storage-postgres",
      ].map((name) => `sdwan-connections-${name}-0.1.0.tgz`),
    );
    const installed = await readdir(join(project, "node_modules", "@sdwan-connections"), { recursive: true });
    expect(installed.filter((path) => /\.spec\.[jt]s$/.test(path))).toEqual([]);
  });

  it("satisfy publint and @arethetypeswrong/cli (ESM only)", async () => {
    for (const tarball of tarballs) {
      await expect(run(join(BIN, "publint"), ["run", "--strict", tarball])).resolves.toBeDefined();
      await expect(run(join(BIN, "attw"), [tarball, "--profile", "esm-only"])).resolves.toBeDefined();
    }
  }, 120_000);

  it("compile core's README snippets with tsc, strict and ESM", async () => {
    const code = await storeSnippets();
    const files = [join(project, "lowdb.ts"), join(project, "postgres.ts")];
    await writeFile(files[0] as string, code.lowdb);
    await writeFile(files[1] as string, code.postgres);
    const program = ts.createProgram(files, {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      outDir: join(project, "dist"),
      types: ["node"],
      typeRoots: [join(ROOT, "node_modules", "@types")],
    });
    const emitted = program.emit();
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
    expect(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => project,
        getNewLine: () => "\n",
      }),
    ).toBe("");
  }, 120_000);

  it("run with plain node: the lowdb snippet adds a connection validated by the orchestrator simulator", async () => {
    await using simulator = await startOrchestratorSimulator();
    const script = [
      `import { embedOverLowdb } from "./dist/lowdb.js";`,
      `const { service, close } = await embedOverLowdb("data");`,
      `const added = await service.connections.add({ alias: "lab", orchestratorUrl: process.argv[2], apiKey: process.argv[3] })();`,
      `const listed = await service.connections.list()();`,
      `await close();`,
      `process.stdout.write(JSON.stringify({ added, listed }));`,
    ].join("\n");
    await writeFile(join(project, "run.mjs"), script);
    const { stdout } = await run(process.execPath, ["run.mjs", simulator.url, PARTNER_KEY], {
      cwd: project,
      env: { PATH: process.env["PATH"] ?? "" },
    });
    expect(JSON.parse(stdout)).toEqual({
      added: { _tag: "Right", right: "added" },
      listed: { _tag: "Right", right: [{ alias: "lab", orchestratorUrl: simulator.url }] },
    });
    expect(simulator.calls.total).toBeGreaterThan(0);
  }, 60_000);
});
