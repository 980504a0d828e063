import { unwatchFile, watchFile, type Stats } from "node:fs";
import * as E from "fp-ts/lib/Either.js";
import { ContainerModule } from "inversify";
import { StartupError, TOKENS, type Config } from "@sdwan-connections/composition";
import pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from "rate-limiter-flexible";
import { HTTP_TOKENS } from "../tokens.js";
import { createAuthenticator } from "./authenticator.js";
import { createLoginThrottle, memoryLimiter } from "./throttle.js";
import { generatedAdminFile, loadUsers, type Users } from "./users.js";

const WATCH_INTERVAL_MS = 1_000;

/**
 * Where failed logins are counted: this process's memory, or with
 * SDWAN_STORAGE=postgres a table of the same database (rate-limiter-flexible's
 * PostgreSQL store, on a small pool of its own), so that several instances
 * share one count. Should the database not answer, memory stands in.
 */
const failureCount = async (config: Config): Promise<{ readonly limiter: RateLimiterAbstract; close(): Promise<void> }> => {
  const options = { points: config.loginMaxFailures, duration: Math.ceil(config.loginWindowMs / 1000) };
  if (config.storage !== "postgres" || config.databaseUrl === undefined) return { limiter: memoryLimiter({ maxFailures: config.loginMaxFailures, windowMs: config.loginWindowMs }), close: async () => undefined };
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 2 });
  pool.on("error", () => undefined); // a lost idle connection; the next query opens another
  const limiter = await new Promise<RateLimiterPostgres>((resolve, reject) => {
    const created: RateLimiterPostgres = new RateLimiterPostgres(
      { ...options, storeClient: pool, storeType: "pool", tableName: "sdwan_login_failures", insuranceLimiter: new RateLimiterMemory(options) },
      (error?: Error) => (error === undefined || error === null ? resolve(created) : reject(new StartupError(`SDWAN_DATABASE_URL: cannot create the failed-login table (${(error as { code?: string }).code ?? error.message})`))),
    );
  });
  return { limiter, close: () => pool.end() };
};

/**
 * Users from the htpasswd file, the environment's admin and the generated
 * admin. The files are watched: when one changes, the users are read again
 * and every cached verification is forgotten.
 */
export const authModule = (config: Config, users: Users) =>
  new ContainerModule(({ bind }) => {
    bind(HTTP_TOKENS.Auth)
      .toDynamicValue(async (context) => {
        const clock = context.get(TOKENS.Clock);
        const logger = context.get(TOKENS.Logger);
        const authenticator = createAuthenticator(users, { clock });
        const files = [config.htpasswdFile, generatedAdminFile(config.dataDir)].filter((file) => file !== undefined);
        let reloads = 0;
        const reload = (current: Stats, previous: Stats): void => {
          // watchFile also reports a file that is missing and stays missing: nothing to read again then.
          if (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino && current.size === previous.size) return;
          const reloading = ++reloads;
          void loadUsers(config).then((next) => {
            // A later change is being read already: this answer may be about a half-written file.
            if (reloading !== reloads) return;
            if (E.isLeft(next)) {
              logger.error({ problem: next.left }, "user file unreadable; every login is refused until it is fixed");
              authenticator.replaceUsers(new Map());
            } else {
              authenticator.replaceUsers(next.right);
              logger.info({ users: next.right.size }, "users reloaded");
            }
          });
        };
        const failures = await failureCount(config);
        for (const file of files) watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, reload);
        return {
          authenticator,
          throttle: createLoginThrottle({ maxFailures: config.loginMaxFailures, windowMs: config.loginWindowMs, limiter: failures.limiter }),
          close: async () => {
            for (const file of files) unwatchFile(file, reload);
            await failures.close();
          },
        };
      })
      .inSingletonScope()
      .onDeactivation((auth) => auth.close());
  });
