import { randomUUID } from "node:crypto";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Actor } from "../domain/audit.js";
import { isUuid } from "../domain/codecs.js";
import { decodeInput } from "../domain/decode.js";
import type { DomainError } from "../domain/errors.js";
import { GrantRequestCodec, type Grant } from "../domain/grants.js";
import type { GrantStore } from "../ports/grant-store.js";

/** The grants (SPEC §11) as the drivers use them: every change audited, the list kept in memory for the decisions. */
export interface GrantService {
  /**
   * Every grant, oldest first: from memory, read from the store again after the store told of a change (by any
   * instance, within a second), so a request's decision costs no store work.
   */
  list(): TE.TaskEither<DomainError, readonly Grant[]>;
  /** Decodes a grant request (`{subject, pattern, verb}`) and adds it as `by`: the grant, or undefined when one saying the same exists. */
  add(body: unknown, by?: Actor): TE.TaskEither<DomainError, Grant | undefined>;
  /** Removes grant `id` as `by`: the grant removed, or undefined when there is none. */
  remove(id: string, by?: Actor): TE.TaskEither<DomainError, Grant | undefined>;
  /**
   * Calls `listener` after every change the store tells of (any instance's, within a second), once `list` no longer
   * answers what it held before: what holds a decision open (an event stream) decides again. Returns the remover.
   */
  onChange(listener: () => void): () => void;
  /** Stops hearing the store's changes. */
  dispose(): void;
}

export interface GrantServiceOptions {
  readonly store: GrantStore;
  /** Records a grant change in the audit trail (as a change), before the change's call answers. */
  readonly audited: (by: Actor | undefined, action: "grant-add" | "grant-remove", grant: Grant) => Promise<void>;
}

export const createGrantService = ({ store, audited }: GrantServiceOptions): GrantService => {
  // The list in memory, and the store's changes counted: a read started before a change is not kept as current.
  let kept: readonly Grant[] | undefined;
  let changes = 0;
  let reading: Promise<readonly Grant[]> | undefined;
  const listeners = new Set<() => void>();
  // The store is watched from the first use on (a store may poll a file for it): a CLI `list` never uses grants.
  let unsubscribe: (() => void) | undefined;
  const watch = (): void => {
    unsubscribe ??= store.subscribe(() => {
      changes += 1;
      kept = undefined;
      reading = undefined;
      for (const listener of listeners) listener();
    });
  };
  const list = (): TE.TaskEither<DomainError, readonly Grant[]> => {
    watch();
    return kept !== undefined
      ? TE.right(kept)
      : TE.tryCatch(
          () => {
            if (reading !== undefined) return reading;
            const seen = changes;
            const read = store
              .list()()
              .then((listed) => {
                if (listed._tag === "Left") return Promise.reject(listed.left);
                if (seen === changes) kept = listed.right;
                return listed.right;
              })
              .finally(() => {
                if (reading === read) reading = undefined;
              });
            reading = read;
            return read;
          },
          (error) => error as DomainError,
        );
  };
  return {
    list,
    add: (body, by) =>
      pipe(
        TE.fromEither(decodeInput(GrantRequestCodec, "body")(body)),
        TE.map((request): Grant => ({ id: randomUUID(), ...request })),
        TE.flatMap((grant) =>
          pipe(
            store.add(grant),
            TE.flatMap((added) =>
              added ? TE.fromTask(async () => (await audited(by, "grant-add", grant), grant)) : TE.right(undefined),
            ),
          ),
        ),
      ),
    remove: (id, by) =>
      pipe(
        // A grant's id is a UUID: anything else names none (and never reaches a store that types its ids).
        isUuid(id) ? store.remove(id) : TE.right(undefined),
        TE.tap((removed) =>
          removed === undefined ? TE.right(undefined) : TE.fromTask(() => audited(by, "grant-remove", removed)),
        ),
      ),
    onChange: (listener) => {
      watch();
      const own = () => listener();
      listeners.add(own);
      return () => void listeners.delete(own);
    },
    dispose: () => {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
};
