import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError, type Problem } from "./api.js";

export type Loaded<A> =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly problem: Problem }
  | { readonly state: "ready"; readonly value: A };

export const problemOf = (error: unknown): Problem =>
  error instanceof ApiError ? error.problem : { title: "The service cannot be reached", status: 0, detail: error instanceof Error ? error.message : String(error) };

/** Runs `load` whenever `deps` change (and on `reload`); an answer that arrives after a newer load began is dropped. */
export const useLoad = <A,>(load: () => Promise<A>, deps: readonly unknown[]): [Loaded<A>, () => void] => {
  const [loaded, setLoaded] = useState<Loaded<A>>({ state: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoaded({ state: "loading" });
    load().then(
      (value) => current && setLoaded({ state: "ready", value }),
      (error: unknown) => current && setLoaded({ state: "failed", problem: problemOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  return [loaded, useCallback(() => setRound((n) => n + 1), [])];
};
