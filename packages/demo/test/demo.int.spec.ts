import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const BASE = "/rest/plugin/sdwan";

// Moved here from http-express's process tests with the demo itself.
describe("pnpm demo", { timeout: 90_000 }, () => {
  it("simulator plus service with a partner and a customer connection, curl lines for every endpoint; Ctrl-C exits 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sdwan-demo-test-"));
    // The sources through tsx, as `pnpm demo` runs the built files.
    const child = spawn(process.execPath, ["--conditions=sdwan-source", "--import", "tsx", "src/demo.ts"], {
      cwd: PACKAGE_DIR,
      env: { PATH: process.env["PATH"] ?? "", SDWAN_PORT: "0", SDWAN_LOG_LEVEL: "warn", SDWAN_DATA_DIR: dir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exited = once(child, "exit").then(([code]) => code as number | null);
    try {
      for (let i = 0; i < 600 && !out.includes("Ctrl-C") && child.exitCode === null; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
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
      expect((await get("/connections/demo-partner?verbose=true")).json).toMatchObject({ valid: true, type: "partner" });
      expect((await get("/partner/demo-partner/customers")).status).toBe(200);
      for (const path of ["/connections", "/partner/demo-partner/customers", "/openapi.json", "?dryrun=true", "-X PUT", "-X DELETE"]) expect(out).toContain(path);
      child.kill("SIGINT");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
});
