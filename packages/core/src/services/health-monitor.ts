import * as E from "fp-ts/lib/Either.js";
import { aliasKey } from "../domain/codecs.js";
import type { ConnectionSummary, StoredConnection } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import { identifyAsCheck } from "../use-cases/identify-target.js";
import { createHealthStates, type HealthChange } from "./health-states.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { HealthLedger } from "../ports/health-ledger.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import { repeatRounds } from "./rounds.js";

export type { HealthChange } from "./health-states.js";

export interface HealthMonitorOptions {
  readonly repository: ConnectionRepository;
  readonly orchestrator: Orchestrator;
  readonly ledger: HealthLedger;
  readonly intervalMs: number;
  /**
   * Connections claimed ahead of their checks, at most (default 1024): a ledger that batches its writes (the
   * embedded store's rewrites one file, and spaces its writes) then writes many claims and records at once, not a
   * few per check; with 256, its claims waited for slots held by records waiting for the next write.
   */
  readonly lookahead?: number;
  readonly onChange?: ((change: HealthChange) => void) | undefined;
  /** After each check this instance claimed and made, with the connection checked (e.g. to watch its key's expiry). */
  readonly onChecked?: ((connection: StoredConnection) => Promise<void>) | undefined;
  /** After each round (e.g. to refresh metrics). */
  readonly onRound?: (() => void) | undefined;
  /** A store that could not be read or written; the round goes on with the next connection. */
  readonly onError?: ((error: DomainError) => void) | undefined;
}

/** Runs at most `limit` tasks at once; the others wait their turn, in order. */
const createLimiter = (limit: number) => {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <A>(work: () => Promise<A>): Promise<A> => {
    while (active >= limit) await new Promise<void>((resume) => waiting.push(resume));
    active += 1;
    try {
      return await work();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
};

/**
 * Periodic revalidation of every connection. Time is cut into intervals;
 * in each, every instance runs one round at a random moment (jitter), and a
 * connection is checked by the one instance that claims it for that
 * interval in the shared ledger. A round checks at most 4
 * connections at once, and never one that is still being checked; claims
 * run ahead of the checks, so that a ledger can write many at once.
 */
export const createHealthMonitor = ({
  repository,
  orchestrator,
  ledger,
  intervalMs,
  lookahead = 1024,
  onChange,
  onChecked,
  onRound,
  onError,
}: HealthMonitorOptions) => {
  const states = createHealthStates({ ledger, repository, onChange, onError });
  const checking = new Set<string>();
  // In this instance, whatever rounds overlap: at most `lookahead` connections between their claim and their
  // record, of which at most 4 asking the orchestrator.
  const ahead = createLimiter(lookahead);
  const asking = createLimiter(4);

  const check = async ({ alias }: ConnectionSummary, window: number): Promise<void> => {
    const key = aliasKey(alias);
    if (checking.has(key)) return;
    checking.add(key);
    try {
      const claimed = await ledger.claim(alias, window)();
      if (E.isLeft(claimed)) return onError?.(claimed.left);
      if (!claimed.right) return;
      const checked = await asking(async () => {
        const stored = await repository.get(alias)();
        if (E.isLeft(stored)) return stored.left._tag === "NotFound" ? undefined : onError?.(stored.left);
        return { connection: stored.right, check: (await identifyAsCheck(orchestrator, stored.right)()).check };
      });
      if (checked === undefined) return;
      await states.record(checked.connection, checked.check)();
      await onChecked?.(checked.connection);
    } finally {
      checking.delete(key);
    }
  };

  /** One round now: every connection, in the interval that contains this moment. */
  const round = async (): Promise<void> => {
    const window = Math.floor(Date.now() / intervalMs);
    const listed = await repository.list()();
    if (E.isLeft(listed)) return onError?.(listed.left);
    await Promise.all(listed.right.map((connection) => ahead(() => check(connection, window))));
    onRound?.();
  };

  // The next round: at a random moment of the next interval (never the same moment on every instance).
  const nextRoundIn = () => {
    const nextInterval = (Math.floor(Date.now() / intervalMs) + 1) * intervalMs;
    return nextInterval - Date.now() + Math.random() * intervalMs * 0.5;
  };
  return { round, ...repeatRounds(round, nextRoundIn) };
};

export type HealthMonitor = ReturnType<typeof createHealthMonitor>;
