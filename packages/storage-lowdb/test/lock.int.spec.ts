import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { createFileLock } from "../src/lock.js";
import { startFixture } from "./processes.js";
import { temporaryDirectory } from "./support.js";

const startTime = (pid: number): string | undefined => {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, "utf8");
    return line.slice(line.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
};

/** Leaves `<path>.lock` as a user of the store with this pid would: its registration and the lock directory. */
const leaveLock = async (path: string, pid: number, started: string | undefined) => {
  await mkdir(`${path}.lock.users`, { recursive: true });
  await writeFile(`${path}.lock.users/${pid}-test.json`, JSON.stringify({ host: hostname(), pid, started }));
  await mkdir(`${path}.lock`);
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
    expect(await createFileLock(path, 10_000).run(async () => "held")()).toEqual(E.right("held"));
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("takes over a lock whose pid now belongs to another process (a reused pid)", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, "connections.json");
    await leaveLock(path, process.pid, "1");
    const started = performance.now();
    expect(await createFileLock(path, 10_000).run(async () => "held")()).toEqual(E.right("held"));
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("takes over within a second the lock of a writer killed with SIGKILL, while another user of the store lives on", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, "connections.json");
    const bystander = startFixture(["register", path]);
    const writer = startFixture(["hold-lock", path]);
    const lock = createFileLock(path, 10_000);
    try {
      await Promise.all([bystander.line("registered"), writer.line("holding")]);
      writer.child.kill("SIGKILL");
      await writer.exited;
      const started = performance.now();
      expect(await lock.run(async () => "held")()).toEqual(E.right("held"));
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      bystander.child.kill("SIGKILL");
      await bystander.exited;
      await lock.close();
    }
  });

  it("never breaks the lock of a live holder: mutual exclusion holds", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, "connections.json");
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    const lock = createFileLock(path, 10_000);
    let attempt: Promise<unknown> = Promise.resolve();
    try {
      await leaveLock(path, holder.pid as number, startTime(holder.pid as number));
      attempt = lock.run(async () => "held")();
      const outcome = await Promise.race([
        attempt,
        new Promise((resolve) => setTimeout(() => resolve("still waiting"), 1_500)),
      ]);
      expect(outcome).toBe("still waiting");
    } finally {
      holder.kill("SIGKILL");
      await once(holder, "exit");
    }
    // Its holder dead, the waiting attempt takes the lock; it must end before the directory is removed.
    expect(await attempt).toEqual(E.right("held"));
    await lock.close();
  });

  it("never breaks a lock while another user of the store in this process is open (two handles on one file)", async () => {
    await using directory = await temporaryDirectory();
    const path = join(directory.path, "connections.json");
    const [one, two] = [createFileLock(path, 10_000), createFileLock(path, 10_000)];
    let release: () => void = () => undefined;
    const held = one.run(() => new Promise<void>((resolve) => (release = resolve)))();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const outcome = await Promise.race([
      two.run(async () => "held")(),
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 1_000)),
    ]);
    expect(outcome).toBe("still waiting");
    release();
    await held;
    await Promise.all([one.close(), two.close()]);
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
        })(),
      ),
    );
    expect(most).toBe(1);
  });
});
