import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createManualClock } from "@sdwan-connections/core/testing";
import bcrypt from "bcryptjs";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { createAuthenticator } from "../src/auth/authenticator.js";
import { loadUsers } from "../src/auth/users.js";

// A timing-ratio test: in the integration project, where wall-clock checks belong (the unit project must not flake under load).
const header = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`;

describe("login time tells no user apart", () => {
  /**
   * The median cost of `runs` checks of `user` with `password`, in this process's CPU time: what the check
   * does, not what other processes on a loaded machine take from it (wall time varied 3× under load).
   */
  const median = async (
    authenticate: (header: string) => Promise<unknown>,
    user: string,
    password: string,
    runs = 7,
  ): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const started = process.cpuUsage();
      await authenticate(header(user, password));
      const spent = process.cpuUsage(started);
      times.push(spent.user + spent.system);
    }
    return times.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
  };

  // 23 bcrypt operations at cost 11: 3 s on an idle machine, more beside a browser test on 2 cores; the ratios are the assertion.
  it(
    "an unknown user and a wrong password (of a file user or the environment admin) cost what a known user's check costs",
    { timeout: 30_000 },
    async () => {
      // A file user hashed at cost 11 sets the cost of every check: the environment admin is hashed at start with it.
      const dir = await mkdtemp(join(tmpdir(), "sdwan-timing-"));
      try {
        const file = join(dir, "users.htpasswd");
        await writeFile(file, `ann:${bcrypt.hashSync("ann-pw", 11)}\n`);
        const users = await loadUsers({
          admin: { user: "env", password: "env-password-1" },
          htpasswdFile: file,
          viewers: [],
          dataDir: dir,
        })();
        if (E.isLeft(users)) throw new Error(users.left);
        expect(users.right.get("env")?.hash).toMatch(/^\$2[aby]\$11\$/);
        // Failures are never cached, so every call is a full check.
        const { authenticate } = createAuthenticator(users.right, { clock: createManualClock() });
        const known = await median(authenticate, "ann", "wrong");
        const figures = {
          unknownUser: (await median(authenticate, "nobody", "x")) / known,
          wrongEnvPassword: (await median(authenticate, "env", "wrong")) / known,
        };
        for (const ratio of Object.values(figures)) {
          expect(ratio, JSON.stringify(figures)).toBeGreaterThan(0.5);
          expect(ratio, JSON.stringify(figures)).toBeLessThan(2);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
