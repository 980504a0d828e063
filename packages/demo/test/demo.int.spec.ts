import { spawn } from "node:child_process";
import { once } from "node:events";
import { access, mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SERVICE_SOURCES_ENV } from "@sdwan-connections/bench-kit";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const BASE = "/rest/plugin/sdwan";

// Moved here from http-express's process tests with the demo itself.
describe("pnpm demo", { timeout: 90_000 }, () => {
  it("simulator plus service with a partner and a customer connection, curl lines for every endpoint; Ctrl-C exits 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sdwan-demo-test-"));
    // The sources through tsx, as `pnpm demo` runs the built files.
    const child = spawn(process.execPath, ["--conditions=sdwan-source", "--import", "tsx", "src/demo.ts"], {
      cwd: PACKAGE_DIR,
      env: {
        PATH: process.env["PATH"] ?? "",
        ...SERVICE_SOURCES_ENV,
        SDWAN_PORT: "0",
        SDWAN_LOG_LEVEL: "warn",
        SDWAN_DATA_DIR: dir,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exited = once(child, "exit").then(([code]) => code as number | null);
    try {
      for (let i = 0; i < 600 && !out.includes("Ctrl-C") && child.exitCode === null; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const api = /service: +(http:\S+)/.exec(out)?.[1] ?? "";
      const [name, password] = (/credentials: +(\S+) \/ (\S+)/.exec(out) ?? []).slice(1);
      const get = async (path: string) => {
        const response = await fetch(`${api.replace(BASE, "")}${BASE}${path}`, {
          headers: { authorization: `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}` },
        });
        return { status: response.status, json: (await response.json()) as unknown };
      };
      expect((await get("/connections")).json, out).toEqual([
        expect.objectContaining({ alias: "demo-customer" }),
        expect.objectContaining({ alias: "demo-partner" }),
      ]);
      expect((await get("/connections/demo-partner?verbose=true")).json).toMatchObject({
        valid: true,
        type: "partner",
      });
      expect((await get("/partner/demo-partner/customers")).status).toBe(200);
      for (const path of [
        "/connections",
        "/partner/demo-partner/customers",
        "/openapi.json",
        "?dryrun=true",
        "-X PUT",
        "-X DELETE",
      ])
        expect(out).toContain(path);
      // How to point the CLI at its store.
      expect(out).toContain(`  export SDWAN_DATA_DIR=${dir}\n  pnpm -s cli list\n`);
      child.kill("SIGINT");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });

  // (tsx keeps its cache under TMPDIR too.)
  const demoDirectories = async (tmp: string) => (await readdir(tmp)).filter((name) => name.startsWith("sdwan-demo-"));
  // The demo's own data directory (SDWAN_DATA_DIR unset) is made under TMPDIR: a fresh one per test shows what is left.
  const startOwn = async (env: Record<string, string> = {}) => {
    const tmp = await mkdtemp(join(tmpdir(), "sdwan-demo-tmp-"));
    const child = spawn(process.execPath, ["--conditions=sdwan-source", "--import", "tsx", "src/demo.ts"], {
      cwd: PACKAGE_DIR,
      env: {
        PATH: process.env["PATH"] ?? "",
        ...SERVICE_SOURCES_ENV,
        TMPDIR: tmp,
        SDWAN_PORT: "0",
        SDWAN_LOG_LEVEL: "warn",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exited = once(child, "exit").then(([code]) => code as number | null);
    const ready = async () => {
      for (let i = 0; i < 600 && !out.includes("Ctrl-C") && child.exitCode === null; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      return out;
    };
    return { tmp, child, exited, ready, output: () => out };
  };

  for (const [signal, code] of [
    ["SIGINT", 0],
    ["SIGTERM", 0],
  ] as const) {
    it(`removes the data directory it made when stopped by ${signal}`, async () => {
      const demo = await startOwn();
      try {
        const out = await demo.ready();
        const dataDir = /export SDWAN_DATA_DIR=(\S+)/.exec(out)?.[1] ?? "";
        expect(dataDir.startsWith(demo.tmp), out).toBe(true);
        await access(join(dataDir, "connections.json"));
        demo.child.kill(signal);
        expect(await demo.exited).toBe(code);
        expect(await demoDirectories(demo.tmp)).toEqual([]);
      } finally {
        if (demo.child.exitCode === null) demo.child.kill("SIGKILL");
        await rm(demo.tmp, { recursive: true, force: true });
      }
    });
  }

  it("says which variable to change when its port is taken, and leaves no data directory", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const address = taken.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const demo = await startOwn({ SDWAN_PORT: String(port) });
    try {
      expect(await demo.exited).toBe(2);
      expect(demo.output()).toContain(`sdwan-connections demo: the service's port ${port} is taken`);
      expect(demo.output()).toContain("SDWAN_PORT=0 pnpm demo");
      expect(await demoDirectories(demo.tmp)).toEqual([]);
    } finally {
      if (demo.child.exitCode === null) demo.child.kill("SIGKILL");
      await new Promise((resolve) => taken.close(resolve));
      await rm(demo.tmp, { recursive: true, force: true });
    }
  });
});
