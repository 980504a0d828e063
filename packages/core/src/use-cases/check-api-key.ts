import { timingSafeEqual } from "node:crypto";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AliasCodec } from "../domain/codecs.js";
import { decodeInput } from "../domain/decode.js";
import { storageFailure, type DomainError } from "../domain/errors.js";
import { KeyCheckRequest } from "../domain/requests.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { KeyFingerprints } from "../ports/key-fingerprints.js";

/**
 * Whether a connection's stored apiKey is the one given, without revealing
 * it. The two keys' fingerprints (equal length whatever the keys) are
 * compared in constant time, so the answer's timing says nothing about how
 * much of the key was right.
 */
export const checkApiKey =
  (deps: { readonly repository: ConnectionRepository; readonly fingerprints: KeyFingerprints }) =>
  (rawAlias: string, body: unknown): TE.TaskEither<DomainError, { readonly matches: boolean }> =>
    pipe(
      TE.fromEither(decodeInput(KeyCheckRequest, "body")(body)),
      TE.flatMap(({ apiKey }) =>
        pipe(
          TE.fromEither(decodeInput(AliasCodec, "alias")(rawAlias)),
          TE.flatMap(deps.repository.get),
          // A key kept elsewhere that cannot be read now is compared with nothing: the check fails, never a mismatch.
          TE.filterOrElse(
            (stored) => stored.apiKey.problem === undefined,
            (stored) => storageFailure(`The key kept elsewhere cannot be read: ${stored.apiKey.problem ?? ""}`),
          ),
          TE.map((stored) => ({
            matches: timingSafeEqual(
              Buffer.from(deps.fingerprints.fingerprint(stored.alias, stored.apiKey)),
              Buffer.from(deps.fingerprints.fingerprint(stored.alias, apiKey)),
            ),
          })),
        ),
      ),
    );
