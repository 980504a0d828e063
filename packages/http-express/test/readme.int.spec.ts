import { readFile, rm } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { makeDataDir } from "./harness.js";
import { serve } from "./wiring-example.js";

describe("the README's wiring example", () => {
  it("is shown exactly as tested here", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain((await readFile(new URL("./wiring-example.ts", import.meta.url), "utf8")).trim());
  });

  it("starts the service, which answers, and stops it", async () => {
    const dir = await makeDataDir();
    try {
      const env = {
        SDWAN_DATA_DIR: dir,
        SDWAN_PORT: "0",
        SDWAN_LOG_LEVEL: "silent",
        SDWAN_ADMIN_USER: "admin",
        SDWAN_ADMIN_PASSWORD: "admin-password-1",
      };
      const service = await serve(env);
      if (E.isLeft(service)) throw new Error(service.left);
      expect((await fetch(`${service.right.url}/healthz`)).status).toBe(200);
      await service.right.close();
      expect(await serve({ ...env, SDWAN_PORT: "not-a-port" })).toEqual(
        E.left("SDWAN_PORT: must be an integer from 0 to 65535"),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
