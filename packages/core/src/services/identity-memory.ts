import { createHmac, randomBytes } from "node:crypto";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { decorateOrchestrator } from "../adapters/decorate-orchestrator.js";
import type { ApiKey } from "../domain/api-key.js";
import type { Identity, OrchestratorTarget } from "../domain/connection.js";
import type { Orchestrator } from "../ports/orchestrator.js";

/**
 * What the last identification of each key learned, so that the customers
 * of a partner whose identity is known cost one round trip (the listing), not
 * two. Keyed by the orchestrator URL and a keyed digest of the key, never by
 * the key itself: another key, or the same key at another URL, finds nothing
 * and is identified first, so an operator's key is never taken for a
 * partner's. Never used to answer a validation (that always asks).
 */
export interface IdentityMemory {
  recall(target: OrchestratorTarget): Identity | undefined;
  forget(target: OrchestratorTarget): void;
  /**
   * `orchestrator`, whose identifications are remembered: an identity when
   * one is learned, nothing when the key is refused; a timeout or an
   * unreachable orchestrator learns nothing and changes nothing.
   */
  remembering(orchestrator: Orchestrator): Orchestrator;
}

/** Enough for every connection of a large deployment; past it, the oldest entries go first. */
const MAX_ENTRIES = 10_000;

/** An HMAC under a secret of this process: the memory is never shown, and is shared by every connection with the key. */
const processDigest = (): ((apiKey: ApiKey) => string) => {
  const secret = randomBytes(32);
  return (apiKey) => createHmac("sha256", secret).update(apiKey.reveal(), "utf8").digest("base64url");
};

export const createIdentityMemory = (digest: (apiKey: ApiKey) => string = processDigest()): IdentityMemory => {
  const identities = new Map<string, Identity>();
  // Per key object: a store hands the same one out while its record is unchanged, and a health round's every
  // check is remembered (an HMAC per check was a line of its profile, issue 40).
  const digests = new WeakMap<ApiKey, string>();
  const digestOf = (apiKey: ApiKey): string => {
    let known = digests.get(apiKey);
    if (known === undefined) {
      known = digest(apiKey);
      digests.set(apiKey, known);
    }
    return known;
  };
  const keyOf = (target: OrchestratorTarget) => `${digestOf(target.apiKey)} ${target.orchestratorUrl}`;
  const remember = (target: OrchestratorTarget, identity: Identity) => {
    const key = keyOf(target);
    identities.delete(key);
    identities.set(key, identity);
    if (identities.size > MAX_ENTRIES) identities.delete(identities.keys().next().value as string);
  };
  const forget = (target: OrchestratorTarget) => void identities.delete(keyOf(target));
  return {
    recall: (target) => identities.get(keyOf(target)),
    forget,
    remembering: (orchestrator) =>
      decorateOrchestrator(orchestrator, {
        identify: (target, deadline) =>
          pipe(
            orchestrator.identify(target, deadline),
            TE.tapIO((identity) => () => remember(target, identity)),
            TE.orElseFirstIOK((error) => () => {
              if (error._tag === "OrchestratorRejected") forget(target);
            }),
          ),
      }),
  };
};
