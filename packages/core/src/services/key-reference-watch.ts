import * as E from "fp-ts/lib/Either.js";
import { aliasKey } from "../domain/codecs.js";
import type { StoredConnection } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { KeyFingerprints } from "../ports/key-fingerprints.js";
import { repeatRounds } from "./rounds.js";

/** How often keys kept elsewhere are read again, by default: a change is seen within 60 s (SPEC §12). */
export const DEFAULT_KEY_REREAD_INTERVAL_MS = 30_000;

export interface KeyReferenceWatchOptions {
  /** The repository as core's use cases see it (`readingKeyReferences`): `get` answers the key read now. */
  readonly repository: ConnectionRepository;
  readonly fingerprints: KeyFingerprints;
  readonly intervalMs: number;
  /** Validates a connection whose key changed (its outcome recorded as its health, a changed state an event). */
  readonly validate: (connection: StoredConnection) => Promise<void>;
  readonly onError?: ((error: DomainError) => void) | undefined;
}

/**
 * Keys kept elsewhere change without the service being told (a Kubernetes Secret updated by External Secrets
 * Operator, a CSI mount rotated): every `intervalMs`, each referenced key is read again and its fingerprint (or why
 * it cannot be read) compared with the last read; a change is validated at once. Only fingerprints are kept, in
 * memory, so each instance validates every such key once after it starts (what changed while it was down). Every
 * instance watches (each may be the one asked next); the health ledger tells a changed state once.
 */
export const createKeyReferenceWatch = ({
  repository,
  fingerprints,
  intervalMs,
  validate,
  onError,
}: KeyReferenceWatchOptions) => {
  const seen = new Map<string, string>();

  const readOne = async (alias: string): Promise<void> => {
    const stored = await repository.get(alias as StoredConnection["alias"])();
    if (E.isLeft(stored)) return stored.left._tag === "NotFound" ? undefined : onError?.(stored.left);
    const { apiKey } = stored.right;
    const state =
      apiKey.problem === undefined
        ? `key ${fingerprints.fingerprint(stored.right.alias, apiKey)}`
        : `unread ${apiKey.problem}`;
    const key = aliasKey(alias);
    const before = seen.get(key);
    seen.set(key, state);
    // First seen (a start, another instance's add): validated too, so a change made meanwhile is never missed.
    if (before !== state) await validate(stored.right);
  };

  /** One reading now of every key kept elsewhere. */
  const round = async (): Promise<void> => {
    const listed = await repository.list()();
    if (E.isLeft(listed)) return onError?.(listed.left);
    const referenced = listed.right.filter((connection) => connection.apiKeyRef !== undefined);
    const still = new Set(referenced.map(({ alias }) => aliasKey(alias)));
    for (const alias of seen.keys()) if (!still.has(alias)) seen.delete(alias);
    for (const { alias } of referenced) await readOne(alias);
  };

  // A first reading at once (what is there now), then one per interval.
  return { round, ...repeatRounds(round, () => intervalMs) };
};

export type KeyReferenceWatch = ReturnType<typeof createKeyReferenceWatch>;
