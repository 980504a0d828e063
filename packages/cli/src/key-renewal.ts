import {
  invalidInput,
  KEY_RENEWAL_MODES,
  type ConnectionSummary,
  type Core,
  type DomainError,
  type KeyRenewal,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";

// SPEC §12: whether the service renews a connection's key before it expires, as the commands take and export it.

/** `add` and `update`'s option. */
export const KEY_RENEWAL_OPTION = {
  "key-renewal": {
    type: "string",
    value: "auto|off",
    description:
      "auto: the service renews the key through the orchestrator before it expires; off (a new one's default): not",
  },
} as const;

/**
 * The request's `keyRenewal` when the option is given. Another value is a malformed option: refused before any use
 * case, so not recorded as an attempted write (docs/interface.md, the audit trail).
 */
export const keyRenewalOf = (
  options: Readonly<Record<string, string | boolean | undefined>>,
): E.Either<DomainError, { readonly keyRenewal?: KeyRenewal }> => {
  const value = options["key-renewal"];
  if (value === undefined) return E.right({});
  return KEY_RENEWAL_MODES.some((mode) => mode === value)
    ? E.right({ keyRenewal: value as KeyRenewal })
    : E.left(invalidInput([{ field: "--key-renewal", message: `must be one of ${KEY_RENEWAL_MODES.join(", ")}` }]));
};

/** How many connections `export` describes at once: through a service, each is a request. */
const AT_ONCE = 16;

const chunksOf = <A>(items: readonly A[], size: number): (readonly A[])[] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));

/** Each connection with its key renewal, for `export` (the list tells only alias and URL). */
export const withKeyRenewal = (service: Core) => (connections: readonly ConnectionSummary[]) =>
  pipe(
    chunksOf(connections, AT_ONCE),
    TE.traverseSeqArray(TE.traverseArray(({ alias }) => service.connections.describe(alias))),
    TE.map((chunks) => chunks.flat()),
  );
