import type * as t from "io-ts";
import type { ComponentChildren, VNode } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Problem } from "@sdwan-connections/core/wire";
import { getJson } from "../api.js";
import { focusFirstInvalid, focusHeadingFromRow } from "../focus.js";
import { useSession } from "../session.js";
import { problemOf, useLoad, type Loaded } from "../use-load.js";
import { ConfirmDialog } from "./confirm-dialog.js";
import { ProblemMessage } from "./problem.js";
import { Table } from "./table.js";

/**
 * The admin pages' shared parts (tokens, grants, webhooks, a webhook's deliveries): a list's states and table, a
 * write's busy flag with its notice or problem, and a form's end.
 */

/** A write under way, and what the last one came to: a notice, or a problem. */
export interface Action {
  readonly busy: boolean;
  readonly problem: Problem | undefined;
  readonly notice: string | undefined;
  /** A problem found before anything is sent (a form's text that cannot be read). */
  readonly refuse: (problem: Problem) => void;
  /**
   * Runs one write: busy until it settles, then `done`'s notice (and the list loaded again, unless `again` is
   * false), or the error's problem (as `shown` words it).
   */
  readonly run: <A>(
    work: Promise<A>,
    done: (value: A) => string,
    options?: { readonly again?: boolean; readonly shown?: (problem: Problem) => Problem },
  ) => void;
}

export const useAction = (reload: () => void): Action => {
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  return {
    busy,
    problem,
    notice,
    refuse: setProblem,
    run: (work, done, { again = true, shown = (found: Problem) => found } = {}) => {
      setBusy(true);
      work.then(
        (value) => {
          setBusy(false);
          setProblem(undefined);
          setNotice(done(value));
          if (again) {
            reload();
            focusHeadingFromRow();
          }
        },
        (error: unknown) => {
          setBusy(false);
          setNotice(undefined);
          setProblem(shown(problemOf(error)));
        },
      );
    },
  };
};

/** What the last write came to: its problem (but the errors shown beside `fields`), or its notice. */
export const Outcome = ({ action, fields = [] }: { readonly action: Action; readonly fields?: readonly string[] }) => (
  <>
    {action.problem === undefined ? null : <ProblemMessage problem={action.problem} shownBesideFields={fields} />}
    {action.notice === undefined ? null : (
      <p class="notice" role="status">
        {action.notice}
      </p>
    )}
  </>
);

/**
 * An admin page's form: its heading, its fields (`children`), what its last write came to, and its submit button;
 * `onSubmit` gets the fields read, and the form to reset once done.
 */
export const AdminForm = ({
  title,
  action,
  fields,
  submit,
  onSubmit,
  children,
}: {
  readonly title: string;
  readonly action: Action;
  /** The fields whose errors are shown beside them. */
  readonly fields: readonly string[];
  readonly submit: string;
  readonly onSubmit: (data: FormData, form: HTMLFormElement) => void;
  readonly children: ComponentChildren;
}) => {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => focusFirstInvalid(form.current), [action.problem]);
  const submitted = (event: SubmitEvent): void => {
    event.preventDefault();
    if (form.current !== null && !action.busy) onSubmit(new FormData(form.current), form.current);
  };
  return (
    <form ref={form} onSubmit={submitted} aria-label={title} novalidate>
      <h2>{title}</h2>
      {children}
      <Outcome action={action} fields={fields} />
      <div class="actions">
        {/* aria-disabled while busy, not disabled: a disabled button drops the focus to the page's body. */}
        <button type="submit" class="primary" aria-disabled={action.busy}>
          {submit}
        </button>
      </div>
    </form>
  );
};

/** A list as the admin pages show it: loading, its problem, what to say when empty, or a table a row per item. */
export const ListTable = <A,>({
  title,
  ...list
}: ListProps<A> & {
  /** The list's section heading (and name); none: the page places the table in a section of its own. */
  readonly title?: string;
}) =>
  title === undefined ? (
    <ListStates {...list} />
  ) : (
    <section aria-label={title}>
      <h2>{title}</h2>
      <ListStates {...list} />
    </section>
  );

interface ListProps<A> {
  readonly loaded: Loaded<readonly A[]>;
  readonly empty: ComponentChildren;
  /** A line above the table (how many there are). */
  readonly note?: (items: readonly A[]) => string;
  readonly caption: string;
  readonly columns: readonly string[];
  readonly row: (item: A) => VNode;
}

const ListStates = <A,>({ loaded, empty, note, caption, columns, row }: ListProps<A>) => {
  if (loaded.state === "loading") return <p aria-live="polite">Loading…</p>;
  if (loaded.state === "failed") return <ProblemMessage problem={loaded.problem} />;
  if (loaded.value.length === 0) return <p>{empty}</p>;
  return (
    <>
      {note === undefined ? null : <p class="note">{note(loaded.value)}</p>}
      <Table caption={caption} columns={columns} items={loaded.value} row={row} />
    </>
  );
};

/** A row's action: a button off while a write runs (aria-disabled: it keeps the focus), named for what it acts on (`label`). */
export const RowButton = ({
  action,
  label,
  danger = false,
  onClick,
  children,
}: {
  readonly action: Action;
  readonly label: string;
  readonly danger?: boolean;
  readonly onClick: () => void;
  readonly children: ComponentChildren;
}) => (
  <button
    type="button"
    class={danger ? "danger" : undefined}
    aria-disabled={action.busy}
    onClick={() => action.busy || onClick()}
    aria-label={label}
  >
    {children}
  </button>
);

/** An admin page's list: the list at `path`, loaded again after each of the page's writes. */
export const useAdminList = <A,>(path: string, codec: t.Decoder<unknown, readonly A[]>) => {
  const session = useSession();
  const [loaded, reload] = useLoad(() => getJson(session.authorization, path, codec), [session]);
  return { session, loaded, action: useAction(reload) };
};

/** A write asked first: `ask(item)` opens its confirmation, which runs `act(item)` or forgets it. */
export interface Confirmation<A> {
  readonly pending: A | undefined;
  readonly ask: (item: A) => void;
  readonly cancel: () => void;
  readonly confirm: () => void;
}

export const useConfirmation = <A,>(act: (item: A) => void): Confirmation<A> => {
  const [pending, setPending] = useState<A | undefined>(undefined);
  return {
    pending,
    ask: setPending,
    cancel: () => setPending(undefined),
    confirm: () => {
      setPending(undefined);
      if (pending !== undefined) act(pending);
    },
  };
};

/** The confirmation of a `Confirmation`'s pending item, saying what the write does (`children`). */
export const Confirm = <A,>({
  confirmation,
  title,
  confirmLabel = "Delete",
  children,
}: {
  readonly confirmation: Confirmation<A>;
  readonly title: string;
  readonly confirmLabel?: string;
  readonly children: ComponentChildren;
}) => (
  <ConfirmDialog
    open={confirmation.pending !== undefined}
    title={title}
    confirmLabel={confirmLabel}
    onCancel={confirmation.cancel}
    onConfirm={confirmation.confirm}
  >
    {children}
  </ConfirmDialog>
);
