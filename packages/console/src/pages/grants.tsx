import * as t from "io-ts";
import { useRef, useState } from "preact/hooks";
import { call, getJson, Grant, type Problem } from "../api.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { Field } from "../components/field.js";
import { ProblemMessage } from "../components/problem.js";
import { VERBS } from "../rights.js";
import { useSession } from "../session.js";
import { problemOf, useLoad } from "../use-load.js";

const Grants = t.array(Grant);
const FIELDS = ["subject", "pattern", "verb"];

/** How a grant reads: `group:emea use emea-*`. */
const described = ({ subject, verb, pattern }: Omit<Grant, "id">): string => `${subject} ${verb} ${pattern}`;

/** A 409 in the console's words: the service keeps one grant per subject, verb and pattern (in any case). */
const duplicate = (grant: Omit<Grant, "id">): Problem => ({
  title: "This grant exists already",
  status: 409,
  detail: `${described(grant)} is granted already (a pattern in another case is the same): nothing was added.`,
});

/**
 * SPEC §11's grants, for admins: every grant, a form to add one (errors beside their fields), and a delete behind a
 * confirmation. A grant adds to the roles, never takes away.
 */
export const GrantsPage = () => {
  const session = useSession();
  const [loaded, reload] = useLoad(() => getJson(session.authorization, "/grants", Grants), [session]);
  const form = useRef<HTMLFormElement>(null);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<Grant | undefined>(undefined);

  const settled = (message: string): void => {
    setBusy(false);
    setProblem(undefined);
    setNotice(message);
    reload();
  };
  const failed = (error: unknown, grant?: Omit<Grant, "id">): void => {
    setBusy(false);
    setNotice(undefined);
    const found = problemOf(error);
    setProblem(found.status === 409 && grant !== undefined ? duplicate(grant) : found);
  };

  const add = (event: SubmitEvent): void => {
    event.preventDefault();
    const element = form.current;
    if (element === null) return;
    const data = new FormData(element);
    const grant = {
      subject: String(data.get("subject") ?? ""),
      pattern: String(data.get("pattern") ?? ""),
      verb: String(data.get("verb") ?? "") as Grant["verb"],
    };
    setBusy(true);
    call(session.authorization, "POST", "/grants", { body: grant }).then(
      () => {
        element.reset();
        settled(`Granted: ${described(grant)}.`);
      },
      (error: unknown) => failed(error, grant),
    );
  };

  const remove = (grant: Grant): void => {
    setDeleting(undefined);
    setBusy(true);
    call(session.authorization, "DELETE", `/grants/${encodeURIComponent(grant.id)}`).then(
      () => settled(`Deleted: ${described(grant)}.`),
      (error: unknown) => failed(error),
    );
  };

  return (
    <>
      <h1 tabIndex={-1}>Grants</h1>
      <p class="note">
        Who may do what on which connections, beside the roles (admins manage every connection, viewers read and use
        every one): <strong>read</strong> (listed, stored form, health, events) ⊂ <strong>use</strong> (validate,
        customers) ⊂ <strong>manage</strong> (add within the pattern, edit, delete).
      </p>
      <form ref={form} onSubmit={add} aria-label="Add a grant" novalidate>
        <h2>Add a grant</h2>
        <Field
          name="subject"
          label="Subject"
          hint="user:NAME, oidc:NAME, token:NAME or group:NAME"
          problem={problem}
          required
          autocomplete="off"
        />
        <Field
          name="pattern"
          label="Alias pattern"
          hint="Letters, digits, '.', '_', '-', and '*' for any run of them (emea-*); case does not matter."
          problem={problem}
          required
          autocomplete="off"
        />
        <Field name="verb" label="Verb" problem={problem} options={VERBS} />
        {problem === undefined ? null : <ProblemMessage problem={problem} shownBesideFields={FIELDS} />}
        {notice === undefined ? null : (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Add grant
          </button>
        </div>
      </form>
      <section aria-label="Every grant">
        <h2>Every grant</h2>
        {loaded.state === "loading" ? <p aria-live="polite">Loading…</p> : null}
        {loaded.state === "failed" ? <ProblemMessage problem={loaded.problem} /> : null}
        {loaded.state === "ready" && loaded.value.length === 0 ? <p>No grants: only the roles apply.</p> : null}
        {loaded.state === "ready" && loaded.value.length > 0 ? (
          <table class="stacks">
            <caption class="visually-hidden">Every grant, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Pattern</th>
                <th scope="col">Verb</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {loaded.value.map((grant) => (
                <tr key={grant.id}>
                  <td class="title">{grant.subject}</td>
                  <td data-label="Pattern">
                    <code>{grant.pattern}</code>
                  </td>
                  <td data-label="Verb">{grant.verb}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="danger"
                      disabled={busy}
                      onClick={() => setDeleting(grant)}
                      aria-label={`Delete ${described(grant)}`}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete the grant?"
        confirmLabel="Delete"
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => deleting !== undefined && remove(deleting)}
      >
        <p>
          <strong>{deleting === undefined ? "" : described(deleting)}</strong>: what the subject's role and other grants
          give stays.
        </p>
      </ConfirmDialog>
    </>
  );
};
