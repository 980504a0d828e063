/**
 * What a store rule decides over what a store holds (a pure function of it): what the store holds after it (absent:
 * nothing changes) and the answer. Each store binds the rule to its medium: a variable in memory, a JSON file under
 * its lock; PostgreSQL says the same in SQL.
 */
export interface StoredChange<S, A> {
  readonly next?: S | undefined;
  readonly answer: A;
}

/** The rule's change of `items` where `id`'s is replaced by `change(it)`; `missing` when none has that id. */
export const changeById =
  <S extends { readonly id: string }, A>(id: string, change: (one: S) => S, answer: (changed: S) => A, missing: A) =>
  (items: readonly S[]): StoredChange<readonly S[], A> => {
    const found = items.find((one) => one.id === id);
    if (found === undefined) return { answer: missing };
    const changed = change(found);
    return { next: items.map((one) => (one === found ? changed : one)), answer: answer(changed) };
  };
