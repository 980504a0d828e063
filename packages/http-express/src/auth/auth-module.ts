import { unwatchFile, watchFile, type Stats } from "node:fs";
import * as E from "fp-ts/lib/Either.js";
import { ContainerModule } from "inversify";
import { TOKENS, type Config } from "@sdwan-connections/composition";
import { HTTP_TOKENS } from "../tokens.js";
import { createAuthenticator } from "./authenticator.js";
import { createLoginThrottle } from "./throttle.js";
import { generatedAdminFile, loadUsers, type Users } from "./users.js";

const WATCH_INTERVAL_MS = 1_000;

/**
 * Users from the htpasswd file, the environment's admin and the generated
 * admin. The files are watched: when one changes, the users are read again
 * and every cached verification is forgotten. Failed logins are counted by
 * the store (TOKENS.Storage): in memory for the embedded one, shared by the
 * instances on PostgreSQL.
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
        const { failures } = await context.getAsync(TOKENS.Storage);
        for (const file of files) watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, reload);
        return {
          authenticator,
          throttle: createLoginThrottle({ maxFailures: config.loginMaxFailures, counter: failures }),
          close: async () => {
            for (const file of files) unwatchFile(file, reload);
          },
        };
      })
      .inSingletonScope()
      .onDeactivation((auth) => auth.close());
  });
