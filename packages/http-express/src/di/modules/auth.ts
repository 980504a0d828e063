import { unwatchFile, watchFile } from "node:fs";
import { ContainerModule } from "inversify";
import { createAuthenticator } from "../../auth/authenticator.js";
import { createLoginThrottle } from "../../auth/throttle.js";
import { generatedAdminFile, loadUsers, type Users } from "../../auth/users.js";
import type { Config } from "../../config.js";
import { TOKENS } from "../tokens.js";
import { StartupError } from "./startup-error.js";


const WATCH_INTERVAL_MS = 1_000;

/**
 * Users from the htpasswd file, the environment's admin and the generated
 * admin. The files are watched: when one changes, the users are read again
 * and every cached verification is forgotten.
 */
export const authModule = (config: Config, users: Users) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Auth)
      .toDynamicValue((context) => {
        const clock = context.get(TOKENS.Clock);
        const logger = context.get(TOKENS.Logger);
        const authenticator = createAuthenticator(users, { clock });
        const files = [config.htpasswdFile, generatedAdminFile(config.dataDir)].filter((file) => file !== undefined);
        let reloads = 0;
        const reload = (): void => {
          const reloading = ++reloads;
          void loadUsers(config).then(
            (next) => {
              // A later change is being read already: this answer may be about a half-written file.
              if (reloading !== reloads) return;
              if (typeof next === "string") {
                logger.error({ problem: next }, "user file unreadable; every login is refused until it is fixed");
                authenticator.replaceUsers(new Map());
              } else {
                authenticator.replaceUsers(next);
                logger.info({ users: next.size }, "users reloaded");
              }
            },
            () => {
              if (reloading === reloads) authenticator.replaceUsers(new Map());
            },
          );
        };
        for (const file of files) watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, reload);
        return {
          authenticator,
          throttle: createLoginThrottle({ maxFailures: config.loginMaxFailures, windowMs: config.loginWindowMs, clock }),
          close: () => {
            for (const file of files) unwatchFile(file, reload);
          },
        };
      })
      .inSingletonScope();
  });

/** Reads the users at start; a bad file stops the start. */
export const loadUsersOrFail = async (config: Config): Promise<Users> => {
  const users = await loadUsers(config);
  if (typeof users === "string") throw new StartupError(users);
  return users;
};
