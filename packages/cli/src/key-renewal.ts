import type { ConnectionService, ConnectionSummary } from "@sdwan-connections/core";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";

// SPEC §12: whether the service renews a connection's key before it expires, as the commands take and export it.

/** `add` and `update`'s option; core decodes the value (a bad one is refused naming `--key-renewal`). */
export const KEY_RENEWAL_OPTION = {
  "key-renewal": {
    type: "string",
    value: "auto|off",
    description:
      "auto: the service renews the key through the orchestrator before it expires; off (a new one's default): not",
  },
} as const;

/** The request's `keyRenewal` when the option is given. */
export const keyRenewalOf = (options: Readonly<Record<string, string | boolean | undefined>>) =>
  options["key-renewal"] === undefined ? {} : { keyRenewal: options["key-renewal"] };

/** How many connections `export` describes at once: through a service, each is a request. */
const AT_ONCE = 16;

const chunksOf = <A>(items: readonly A[], size: number): (readonly A[])[] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));

/** Each connection with its key renewal, for `export` (the list tells only alias and URL). */
export const withKeyRenewal = (service: ConnectionService) => (connections: readonly ConnectionSummary[]) =>
  pipe(
    chunksOf(connections, AT_ONCE),
    TE.traverseSeqArray(TE.traverseArray(({ alias }) => service.describeConnection(alias))),
    TE.map((chunks) => chunks.flat()),
  );
