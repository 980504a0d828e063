import { statSync } from "node:fs";
import * as E from "fp-ts/lib/Either.js";
import { ContainerModule, inject, injectable, preDestroy } from "inversify";
import { IDS, type Config, type Groups, type Logger, type OutboundFetch } from "@sdwan-connections/composition";
import { everyBeat, type Storage } from "@sdwan-connections/core";
import type { Clock } from "@sdwan-connections/core";
import { HTTP_IDS, type Auth } from "../di-identifiers.js";
import { createAuthenticator, type Authenticator } from "./authenticator.js";
import { createBearerAuthenticator, type BearerAuthenticator } from "./bearer.js";
import { createSessionTokens, sessionSigningKey, withConsoleSessions, type SessionTokens } from "./console-session.js";
import { createLoginThrottle, type LoginThrottle } from "./throttle.js";
import { generatedAdminFile, loadGroups, loadUsers, type Users } from "./users.js";

const WATCH_INTERVAL_MS = 1_000;

/**
 * What tells a file's versions apart (undefined: no file, or none readable). Looked up synchronously: a metadata
 * lookup costs microseconds, where `watchFile`'s trip through the thread pool woke a worker thread and the event loop
 * of an idle service every second (issue 40).
 */
const versionOf = (file: string): string | undefined => {
  try {
    const stats = statSync(file, { throwIfNoEntry: false });
    return stats === undefined ? undefined : `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch {
    return undefined;
  }
};

/**
 * Users from the htpasswd file, the environment's admin and the generated
 * admin. The files are polled every second: when one changes (or appears, or
 * goes), the users are read again and every cached verification is
 * forgotten. Failed logins are counted by
 * the store (IDS.Storage): in memory for the embedded one, shared by the
 * instances on PostgreSQL. Each constructor parameter names its token:
 * vitest's esbuild emits no decorator metadata, so tests and the tsc build
 * resolve the same way.
 */
@injectable()
export class WatchedUsersAuth implements Auth {
  readonly authenticator: Authenticator;
  readonly throttle: LoginThrottle;
  readonly bearer: BearerAuthenticator | undefined;
  readonly sessions: SessionTokens;
  private currentGroups: Groups;
  /** Each watched file's version when last looked at. */
  private readonly versions: Map<string, string | undefined>;
  private readonly stopPolling: () => void;
  private reloads = 0;

  constructor(
    @inject(IDS.Config) private readonly config: Config,
    @inject(HTTP_IDS.Users) users: Users,
    @inject(HTTP_IDS.Groups) groups: Groups,
    @inject(IDS.Clock) clock: Clock,
    @inject(IDS.Logger) private readonly logger: Logger,
    @inject(IDS.Storage) { failures }: Storage,
    @inject(IDS.OutboundFetch) fetch: OutboundFetch,
  ) {
    this.sessions = createSessionTokens(sessionSigningKey(config.masterKey?.key), clock);
    this.authenticator = withConsoleSessions(createAuthenticator(users, { clock }), users, this.sessions);
    this.throttle = createLoginThrottle({ maxFailures: config.loginMaxFailures, counter: failures });
    this.bearer =
      config.oidc === undefined ? undefined : createBearerAuthenticator(config.oidc, { clock, logger, fetch });
    this.currentGroups = groups;
    const files = [config.htpasswdFile, generatedAdminFile(config.dataDir), config.groupsFile].filter(
      (file) => file !== undefined,
    );
    this.versions = new Map(files.map((file) => [file, versionOf(file)]));
    // On the process's shared beat, with the store's polls: no wake of its own.
    this.stopPolling = everyBeat(WATCH_INTERVAL_MS, this.look);
  }

  readonly groups = (): Groups => this.currentGroups;

  private readonly look = (): void => {
    let changed = false;
    for (const [file, before] of this.versions) {
      const now = versionOf(file);
      if (now === before) continue;
      this.versions.set(file, now);
      changed = true;
    }
    if (changed) this.reload();
  };

  private readonly reload = (): void => {
    const reloading = ++this.reloads;
    void loadGroups(this.config.groupsFile)().then((next) => {
      if (reloading !== this.reloads) return;
      // An unreadable groups file keeps the groups before it: removing them could only take rights away.
      if (E.isLeft(next))
        this.logger.error({ problem: next.left }, "groups file unreadable; the groups read before stay");
      else this.currentGroups = next.right;
    });
    void loadUsers(this.config)().then((next) => {
      // A later change is being read already: this answer may be about a half-written file.
      if (reloading !== this.reloads) return;
      if (E.isLeft(next)) {
        this.logger.error({ problem: next.left }, "user file unreadable; every login is refused until it is fixed");
        this.authenticator.replaceUsers(new Map());
      } else {
        this.authenticator.replaceUsers(next.right);
        this.logger.info({ users: next.right.size }, "users reloaded");
      }
    });
  };

  @preDestroy()
  async close(): Promise<void> {
    this.stopPolling();
  }
}

export const authModule = (users: Users, groups: Groups = new Map()) =>
  new ContainerModule(({ bind }) => {
    bind(HTTP_IDS.Users).toConstantValue(users);
    bind(HTTP_IDS.Groups).toConstantValue(groups);
    bind(HTTP_IDS.Auth).to(WatchedUsersAuth).inSingletonScope();
  });
