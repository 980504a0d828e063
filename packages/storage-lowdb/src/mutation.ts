import type { DomainError, WrittenConnection } from "@sdwan-connections/core";
import type * as E from "fp-ts/lib/Either.js";
import type { StoredConnection } from "./file-format.js";

/**
 * A change applied to the whole store under the lock; it returns its result, whether it changed anything, and
 * the connection it left or removed (for its audit entry).
 * `nextVersion` gives the version for a connection it changes: the store's next, never given before.
 */
export type Mutation<A> = (
  connections: Map<string, StoredConnection>,
  nextVersion: () => number,
) => E.Either<DomainError, { readonly value: A; readonly changed: boolean; readonly written?: WrittenConnection }>;
