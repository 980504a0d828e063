import { randomBytes } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";
import type { AuditEntry } from "../domain/audit.js";
import { aliasKey, type Alias } from "../domain/codecs.js";
import type { StoredConnection } from "../domain/connection.js";
import type { DomainError, OrchestratorError } from "../domain/errors.js";
import { MAX_API_TOKEN_LIFETIME_MS, tokenExpiryOf, tokenUuidOf, type KeyExpiry } from "../domain/key-expiry.js";
import { renewalBackoffMs, renewalDue, type KeyRenewalDetail } from "../domain/key-renewal.js";
import type { Clock } from "../ports/clock.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import type { RenewalIntent, RenewalLedger, RenewalRecord } from "../ports/renewal-ledger.js";
import type { WarnedConnection } from "./key-expiry-watch.js";
import { repeatRounds } from "./rounds.js";

export interface KeyRenewalsOptions {
  readonly repository: ConnectionRepository;
  readonly orchestrator: Orchestrator;
  readonly ledger: RenewalLedger;
  readonly clock: Clock;
  /** Renew a key this many days before its expiry (`SDWAN_KEY_RENEW_DAYS`). */
  readonly renewDays: number;
  /** Revoke the old partner token this long after its successor is stored; 0: at once (`SDWAN_KEY_RENEW_OVERLAP_H`). */
  readonly overlapMs: number;
  /** The key's expiry, by core's key-expiry rules (stored, else the orchestrator's). */
  readonly expiryOf: (connection: StoredConnection) => Promise<KeyExpiry | undefined>;
  /** The audit entry of a swap (a `key-renew` change by `renewal`), recorded by the store with it. */
  readonly renewedEntry: (connection: StoredConnection, detail: KeyRenewalDetail) => AuditEntry;
  /** Records a renewal that could not be done (`key-renewal-failed`), its reason given. */
  readonly failed: (connection: WarnedConnection, reason: string, at: Date) => void;
  /** An unreachable orchestrator is told as a failure only this close (days) to the key's expiry: the last warning. */
  readonly lastWarningDays: number;
  /** The first wait after a failure, doubled after each (at most a day). */
  readonly retryBaseMs: number;
  /** How long a taken renewal stays this instance's without a word (its lease): a dead instance's ends then. */
  readonly leaseMs?: number;
  readonly onError?: ((error: DomainError) => void) | undefined;
}

// The ledger could not be written, or the renewal was taken over: stop here; what was recorded is finished later.
class Halt extends Error {}

// An orchestrator that may answer later: nothing is decided on it.
const transient = (error: OrchestratorError): boolean => error._tag !== "OrchestratorRejected";
const DAY_MS = 24 * 3600 * 1000;

/**
 * Renews the keys of connections with `keyRenewal: auto` as their expiry nears (SPEC §12), as a saga whose every
 * step is recorded in the ledger before the next starts: whoever holds a connection's renewals (one instance at a
 * time, by lease) finishes an intent it finds, or revokes the token it made, so a crash at any step leaves a
 * working key and no downloaded token both unstored and unrevoked.
 */
export const createKeyRenewals = (options: KeyRenewalsOptions) => {
  const { repository, orchestrator, ledger, clock, onError } = options;
  // This instance's name in the ledger's leases.
  const owner = `renewal-${randomBytes(6).toString("hex")}`;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const now = () => new Date(clock.now());
  const targetOf = (connection: StoredConnection, apiKey = connection.apiKey) => ({
    orchestratorUrl: connection.orchestratorUrl,
    apiKey,
  });

  /** Records `record` while this instance holds it, and holds it a lease longer (for the next step); else halts the run. */
  const keep = async (record: RenewalRecord): Promise<RenewalRecord> => {
    const saved = await ledger.save(record, owner)();
    if (E.isLeft(saved)) onError?.(saved.left);
    if (E.isLeft(saved) || !saved.right) throw new Halt();
    const held = await ledger.acquire(record.alias, owner, now(), new Date(clock.now() + leaseMs))();
    if (E.isLeft(held)) onError?.(held.left);
    if (E.isLeft(held) || held.right === undefined) throw new Halt();
    return record;
  };
  const done = (record: RenewalRecord, failures = 0): RenewalRecord => ({
    ...record,
    intent: undefined,
    failures,
    retryAt: failures === 0 ? undefined : new Date(clock.now() + renewalBackoffMs(failures, options.retryBaseMs)),
  });

  /** The renewal could not be done: the intent is over, the next attempt backs off, the failure is told. */
  const fail = async (record: RenewalRecord, connection: StoredConnection, reason: string, quiet = false) => {
    await keep(done(record, record.failures + 1));
    if (!quiet) options.failed(connection, reason, now());
  };

  /** A stored connection, undefined when gone; halts on a store that cannot be read. */
  const read = async (alias: Alias): Promise<StoredConnection | undefined> => {
    const stored = await repository.get(alias)();
    if (E.isRight(stored)) return stored.right;
    if (stored.left._tag === "NotFound") return undefined;
    onError?.(stored.left);
    throw new Halt();
  };

  /**
   * Revokes the token the intent made (it never reached the connection), with any key of its user that works: the
   * connection's, else the new one (the only one left once the connection was deleted: a token made but never
   * downloaded then stays unused). Halts while the orchestrator cannot say (the intent stays, to try again).
   */
  const revokeMade = async (intent: RenewalIntent, connection: StoredConnection | undefined): Promise<void> => {
    const orchestratorUrl = connection?.orchestratorUrl ?? intent.orchestratorUrl;
    if (intent.method !== "create" || intent.tokenId === undefined || orchestratorUrl === undefined) return;
    const keys = [
      ...(connection === undefined ? [] : [connection.apiKey]),
      ...(intent.newKey === undefined ? [] : [intent.newKey]),
    ];
    for (const apiKey of keys) {
      const revoked = await orchestrator.revokeApiToken({ orchestratorUrl, apiKey }, intent.identity, intent.tokenId)();
      if (E.isRight(revoked)) return;
      if (transient(revoked.left)) throw new Halt();
    }
  };

  /** Drops the intent: its token revoked, the record kept without it. */
  const drop = async (record: RenewalRecord, intent: RenewalIntent, connection: StoredConnection | undefined) => {
    await revokeMade(intent, connection);
    return keep({ ...record, intent: undefined });
  };

  /** Step `stored`: the old token revoked once the overlap is over, then the renewal is done. */
  const revokeOld = async (record: RenewalRecord, intent: RenewalIntent): Promise<void> => {
    if ((intent.revokeAt?.getTime() ?? 0) > clock.now()) return;
    const connection = await read(record.alias);
    if (intent.oldTokenId !== undefined && connection !== undefined) {
      const revoked = await orchestrator.revokeApiToken(targetOf(connection), intent.identity, intent.oldTokenId)();
      if (E.isLeft(revoked) && transient(revoked.left)) return;
      if (E.isLeft(revoked)) onError?.(revoked.left);
    }
    await keep(done(record));
  };

  /** The new key is stored: a refresh is done; a partner's old token waits for the overlap. */
  const stored = async (record: RenewalRecord, intent: RenewalIntent): Promise<void> => {
    if (intent.method === "refresh") return void (await keep(done(record)));
    const { newKey: _stored, ...rest } = intent;
    const next: RenewalIntent = { ...rest, step: "stored", revokeAt: new Date(clock.now() + options.overlapMs) };
    await revokeOld(await keep({ ...done(record), intent: next }), next);
  };

  /** Step `received`: the new key validated, then swapped in at the version the renewal started from. */
  const swap = async (record: RenewalRecord, intent: RenewalIntent): Promise<void> => {
    const connection = await read(record.alias);
    const newKey = intent.newKey;
    if (connection === undefined || newKey === undefined) return void (await drop(record, intent, connection));
    // Swapped before a crash: only what follows is left.
    if (connection.apiKey.reveal() === newKey.reveal()) return stored(record, intent);
    // The connection changed meanwhile (a manual key change wins): the token made is revoked.
    if (connection.version !== intent.fromVersion) return void (await drop(record, intent, connection));
    const identity = await orchestrator.identify(targetOf(connection, newKey))();
    if (E.isLeft(identity) && transient(identity.left)) return;
    if (E.isLeft(identity) || JSON.stringify(identity.right) !== JSON.stringify(intent.identity)) {
      const dropped = await drop(record, intent, connection);
      return fail(dropped, connection, "the orchestrator did not accept the renewed key as the same account's");
    }
    const entry = options.renewedEntry(connection, { method: intent.method, expiresAt: tokenExpiryOf(newKey) });
    const swapped = await repository.update(record.alias, { apiKey: newKey }, [intent.fromVersion], entry)();
    if (E.isRight(swapped)) return stored(record, intent);
    if (swapped.left._tag === "VersionMismatch" || swapped.left._tag === "NotFound")
      return void (await drop(record, intent, await read(record.alias)));
    onError?.(swapped.left);
  };

  /** A renewal from its start (the intent recorded before each step). */
  const start = async (record: RenewalRecord, connection: StoredConnection): Promise<void> => {
    const target = targetOf(connection);
    const deadline = orchestrator.startDeadline();
    const identity = await orchestrator.identify(target, deadline)();
    const failure = (error: OrchestratorError, at: RenewalRecord) =>
      fail(at, connection, error.reason, transient(error) && !nearEnd(connection));
    if (E.isLeft(identity)) return failure(identity.left, record);
    const base = {
      id: `${clock.now().toString(36)}-${randomBytes(4).toString("hex")}`,
      identity: identity.right,
      fromVersion: connection.version,
      orchestratorUrl: connection.orchestratorUrl,
      startedAt: now(),
    };
    if (identity.right.kind === "customer") {
      const intent: RenewalIntent = { ...base, method: "refresh", step: "started" };
      const started = await keep({ ...record, intent });
      const refreshed = await orchestrator.refreshApiToken(target, deadline)();
      if (E.isLeft(refreshed)) return failure(refreshed.left, started);
      const received: RenewalIntent = { ...intent, step: "received", newKey: refreshed.right };
      return swap(await keep({ ...started, intent: received }), received);
    }
    const tokens = await orchestrator.listApiTokens(target, identity.right, deadline)();
    const uuid = tokenUuidOf(connection.apiKey);
    const oldTokenId = E.isRight(tokens) ? tokens.right.find((token) => token.tokenUuid === uuid)?.id : undefined;
    const intent: RenewalIntent = {
      ...base,
      method: "create",
      step: "started",
      ...(oldTokenId === undefined ? {} : { oldTokenId }),
    };
    const started = await keep({ ...record, intent });
    const name = `sdwan-connections ${connection.alias} ${base.id}`;
    const request = { name, lifetimeMs: MAX_API_TOKEN_LIFETIME_MS };
    const made = await orchestrator.createApiToken(target, identity.right, request, deadline)();
    if (E.isLeft(made)) return failure(made.left, started);
    const createdIntent: RenewalIntent = { ...intent, step: "created", tokenId: made.right.id };
    const created = await keep({ ...started, intent: createdIntent });
    const key = await orchestrator.downloadApiToken(target, identity.right, made.right.id, deadline)();
    if (E.isLeft(key)) return failure(key.left, await drop(created, createdIntent, connection));
    const received: RenewalIntent = { ...createdIntent, step: "received", newKey: key.right };
    return swap(await keep({ ...created, intent: received }), received);
  };

  // Whether the key is within the last warning of its expiry (known from the last look at it).
  const expiries = new Map<string, Date>();
  const nearEnd = (connection: StoredConnection): boolean => {
    const expiresAt = expiries.get(aliasKey(connection.alias));
    return expiresAt !== undefined && expiresAt.getTime() - clock.now() <= options.lastWarningDays * DAY_MS;
  };

  /** Whether the connection's key should be renewed now (its renewals not backing off). */
  const due = async (connection: StoredConnection, record: RenewalRecord | undefined): Promise<boolean> => {
    // A key kept elsewhere is never renewed here: its owner rotates it (SPEC §12).
    if (connection.keyRenewal !== "auto" || connection.apiKeyRef !== undefined) return false;
    if ((record?.retryAt?.getTime() ?? 0) > clock.now()) return false;
    const expiry = await options.expiryOf(connection);
    if (expiry !== undefined) expiries.set(aliasKey(connection.alias), expiry.expiresAt);
    return expiry !== undefined && renewalDue(expiry.expiresAt, now(), options.renewDays);
  };

  /** Takes the connection's renewals, finishes the intent it finds or starts one when due, and lets go. */
  const renewing = new Set<string>(); // in this instance (the lease is per instance): one run per connection
  const renew = async (alias: Alias): Promise<void> => {
    if (renewing.has(aliasKey(alias))) return;
    renewing.add(aliasKey(alias));
    try {
      await renewHeld(alias);
    } finally {
      renewing.delete(aliasKey(alias));
    }
  };
  const renewHeld = async (alias: Alias): Promise<void> => {
    const taken = await ledger.acquire(alias, owner, now(), new Date(clock.now() + leaseMs))();
    if (E.isLeft(taken)) return onError?.(taken.left);
    const record = taken.right;
    if (record === undefined) return;
    try {
      const intent = record.intent;
      if (intent?.step === "started") await keep({ ...record, intent: undefined });
      else if (intent?.step === "created") await drop(record, intent, await read(alias));
      else if (intent?.step === "received") await swap(record, intent);
      else if (intent?.step === "stored") await revokeOld(record, intent);
      else {
        // Read again once held: another instance may have renewed it meanwhile.
        const connection = await read(alias);
        if (connection !== undefined && (await due(connection, record))) await start(record, connection);
      }
    } catch (error) {
      if (!(error instanceof Halt)) throw error;
    } finally {
      const released = await ledger.release(alias, owner)();
      if (E.isLeft(released)) onError?.(released.left);
    }
  };

  /** One round: every connection whose key is due, and every intent left unfinished (by a crash, or waiting to revoke). */
  const round = async (): Promise<void> => {
    const [listed, records] = [await repository.list()(), await ledger.list()()];
    if (E.isLeft(listed)) return onError?.(listed.left);
    if (E.isLeft(records)) return onError?.(records.left);
    const recordOf = new Map(records.right.map((record) => [aliasKey(record.alias), record]));
    const aliases = new Map(listed.right.map(({ alias }) => [aliasKey(alias), alias]));
    for (const record of records.right)
      if (record.intent !== undefined) aliases.set(aliasKey(record.alias), record.alias);
    const queue = [...aliases.entries()];
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const [key, alias] = next;
        const record = recordOf.get(key);
        if (record?.intent === undefined) {
          const stored = await repository.get(alias)();
          if (E.isLeft(stored) || !(await due(stored.right, record))) continue;
        }
        await renew(alias);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  };

  let rounds: ReturnType<typeof repeatRounds> | undefined;
  return {
    round,
    /** A round now (unfinished intents first of all), then one about every `intervalMs`. */
    start: (intervalMs: number): void => {
      rounds ??= repeatRounds(round, () => intervalMs * (0.75 + Math.random() * 0.5));
      rounds.start();
    },
    /** No more rounds; waits for the one running. */
    stop: async (): Promise<void> => rounds?.stop(),
  };
};

export type KeyRenewals = ReturnType<typeof createKeyRenewals>;
