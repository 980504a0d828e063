import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Problem } from "@sdwan-connections/core/wire";
import { ApiError, consoleProblem } from "./api.js";

export type Loaded<A> =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly problem: Problem }
  | { readonly state: "ready"; readonly value: A };

/** A 412 in the console's words: the service's detail speaks HTTP (ETag, If-Match), an operator needs what to do. */
const CHANGED_MEANWHILE = consoleProblem(
  "The connection changed since you opened it",
  "Someone saved a change to it in the meantime, so yours was not saved. Open the connection again to see its current state, then redo your change.",
  412,
);

export const problemOf = (error: unknown): Problem =>
  error instanceof ApiError
    ? error.problem.status === 412
      ? CHANGED_MEANWHILE
      : error.problem
    : consoleProblem("The service cannot be reached", error instanceof Error ? error.message : String(error));

/**
 * Runs `load` whenever `deps` change (and on `reload`); an answer that arrives after a newer load began is dropped.
 * `load` may show a first part before its answer (`early`: the first rows of a long list), while it is current.
 * `refresh` loads again while the value already shown stays (no "Loading…"): for what an event says has changed.
 */
export const useLoad = <A>(
  load: (early: (value: A) => void, current: () => boolean) => Promise<A>,
  deps: readonly unknown[],
): [Loaded<A>, () => void, () => void] => {
  const [loaded, setLoaded] = useState<Loaded<A>>({ state: "loading" });
  const [round, setRound] = useState(0);
  const quiet = useRef(false);
  useEffect(() => {
    let current = true;
    if (!quiet.current) setLoaded({ state: "loading" });
    quiet.current = false;
    load(
      (value) => current && setLoaded({ state: "ready", value }),
      () => current,
    ).then(
      (value) => current && setLoaded({ state: "ready", value }),
      (error: unknown) => current && setLoaded({ state: "failed", problem: problemOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  const refresh = useCallback(() => {
    quiet.current = true;
    setRound((n) => n + 1);
  }, []);
  return [loaded, reload, refresh];
};
