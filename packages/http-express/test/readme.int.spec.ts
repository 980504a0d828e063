import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { promisify } from "node:util";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { makeDataDir } from "./harness.js";
import { serve } from "./wiring-example.js";

const run = promisify(execFile);

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

/** The README's step-by-step block: each curl command (continuation lines joined) and the `# ` answer shown below it. */
const stepByStep = (readme: string): { command: string; answer: string }[] => {
  const block = readme.split("```sh\nU='admin:")[1]?.split("\n```")[0] ?? "";
  const lines = `U='admin:${block}`.replace(/\\\n\s*/g, "").split("\n");
  return lines.flatMap((line, i) => {
    const answer = lines[i + 1];
    return line.startsWith("curl ") && answer?.startsWith("# ") ? [{ command: line, answer: answer.slice(2) }] : [];
  });
};

/** An answer as the README shows it: "…" stands for any text; in JSON, the blank after a comma is for reading. */
const shownAs = (answer: string): RegExp => {
  const text = /^[[{]/.test(answer) ? answer.replace(/, /g, ",") : answer;
  return new RegExp(
    `^${text
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\s\\S]*")}$`,
  );
};

describe("the README's step by step", () => {
  it("answers each curl line as the README shows, against the simulator", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const steps = stepByStep(readme);
    expect(steps).toHaveLength(3);
    const dir = await makeDataDir();
    await using simulator = await startOrchestratorSimulator();
    const service = await serve({
      SDWAN_DATA_DIR: dir,
      SDWAN_PORT: "0",
      SDWAN_LOG_LEVEL: "silent",
      SDWAN_ADMIN_USER: "admin",
      SDWAN_ADMIN_PASSWORD: "admin-password-1",
    });
    if (E.isLeft(service)) throw new Error(service.left);
    try {
      for (const { command, answer } of steps) {
        const { stdout } = await run("bash", ["-c", command.replaceAll("http://127.0.0.1:8981/", simulator.url)], {
          env: {
            PATH: process.env["PATH"] ?? "",
            U: "admin:admin-password-1",
            API: `${service.right.url}/rest/plugin/sdwan`,
          },
        });
        expect(stdout, command).toMatch(shownAs(answer.replaceAll("http://127.0.0.1:8981/", simulator.url)));
      }
    } finally {
      await service.right.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
