import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { createFileLock } from "../src/lock.js";
import { temporaryDirectory } from "./support.js";

const startTime = (pid: number): string | undefined => {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, "utf8");
    return line.slice(line.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
};

/** Leaves `<path>.lock` as a holder with this pid would: the lock directory and its owner file. */
const leaveLock = async (path: string, pid: number, started: string | undefined) => {
  await mkdir(`${path}.lock`);
  await writeFile(`${path}.lock.owner`, JSON.stringify({ host: hostname(), pid, started, lock: statSync(`${path}.lock`).ino }));
};

const deadPid = async (): Promise<number> => {
  const child = spawn(process.execPath, ["-e", ""]);
  await once(child, "exit");
  return child.pid as number;
};

describe("the file lock", () => {
  it("takes over at once a lock whose holder died on this machine (instead of after the stale time)", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, "connections.json");
    await leaveLock(path, await deadPid(), undefined);
    const started = performance.now();
    expect(await createFileLock(path, 10_000).run(async () => "held")).toEqual(E.right("held"));
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("takes over a lock whose pid now belongs to another process (a reused pid)", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, "connections.json");
    await leaveLock(path, process.pid, "1");
    const started = performance.now();
    expect(await createFileLock(path, 10_000).run(async () => "held")).toEqual(E.right("held"));
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("never breaks the lock of a live holder: mutual exclusion holds", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, "connections.json");
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      await leaveLock(path, holder.pid as number, startTime(holder.pid as number));
      const attempt = createFileLock(path, 10_000).run(async () => "held");
      const outcome = await Promise.race([attempt, new Promise((resolve) => setTimeout(() => resolve("still waiting"), 1_500))]);
      expect(outcome).toBe("still waiting");
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("excludes concurrent holders in one process", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, "connections.json");
    const lock = createFileLock(path, 10_000);
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        lock.run(async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 2));
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});
