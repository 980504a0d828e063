import * as t from "io-ts";
import { Grant, problemSlugOf, type Problem } from "@sdwan-connections/core/wire";
import { call, consoleProblem } from "../api.js";
import { Confirm, AdminForm, ListTable, RowButton, useAdminList, useConfirmation } from "../components/admin-list.js";
import { Field } from "../components/field.js";
import { VERBS } from "../rights.js";

const Grants = t.readonlyArray(Grant);
const FIELDS = ["subject", "pattern", "verb"];

/** A grant as the form gives it. */
type GrantLine = Record<"subject" | "pattern" | "verb", string>;

/** How a grant reads: `group:emea use emea-*`. */
const described = ({ subject, verb, pattern }: GrantLine): string => `${subject} ${verb} ${pattern}`;

/** A 409 in the console's words: the service keeps one grant per subject, verb and pattern (in any case). */
const duplicate = (grant: GrantLine): Problem =>
  consoleProblem(
    "This grant exists already",
    `${described(grant)} is granted already (a pattern in another case is the same): nothing was added.`,
    409,
  );

/**
 * SPEC §11's grants, for admins: every grant, a form to add one (errors beside their fields), and a delete behind a
 * confirmation. A grant adds to the roles, never takes away.
 */
export const GrantsPage = () => {
  const { session, loaded, action } = useAdminList("/grants", Grants);
  const { problem } = action;

  const add = (data: FormData, element: HTMLFormElement): void => {
    const grant = {
      subject: String(data.get("subject") ?? ""),
      pattern: String(data.get("pattern") ?? ""),
      verb: String(data.get("verb") ?? ""),
    };
    action.run(
      call(session.authorization, "POST", "/grants", { body: grant }),
      () => {
        element.reset();
        return `Granted: ${described(grant)}.`;
      },
      { shown: (found) => (problemSlugOf(found.type) === "grant-already-exists" ? duplicate(grant) : found) },
    );
  };

  const deleting = useConfirmation((grant: Grant) =>
    action.run(
      call(session.authorization, "DELETE", `/grants/${encodeURIComponent(grant.id)}`),
      () => `Deleted: ${described(grant)}.`,
    ),
  );

  return (
    <>
      <h1 tabIndex={-1}>Grants</h1>
      <p class="note">
        Who may do what on which connections, beside the roles (admins manage every connection, viewers read and use
        every one): <strong>read</strong> (listed, stored form, health, events) ⊂ <strong>use</strong> (validate,
        customers) ⊂ <strong>manage</strong> (add within the pattern, edit, delete).
      </p>
      <AdminForm title="Add a grant" action={action} fields={FIELDS} submit="Add grant" onSubmit={add}>
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
      </AdminForm>
      <ListTable
        title="Every grant"
        loaded={loaded}
        empty="No grants: only the roles apply."
        caption="Every grant, oldest first"
        columns={["Subject", "Pattern", "Verb", "Actions"]}
        row={(grant) => (
          <tr key={grant.id}>
            <td class="title">{grant.subject}</td>
            <td data-label="Pattern">
              <code>{grant.pattern}</code>
            </td>
            <td data-label="Verb">{grant.verb}</td>
            <td class="actions">
              <RowButton
                action={action}
                label={`Delete ${described(grant)}`}
                danger
                onClick={() => deleting.ask(grant)}
              >
                Delete
              </RowButton>
            </td>
          </tr>
        )}
      />
      <Confirm confirmation={deleting} title="Delete the grant?">
        <p>
          <strong>{deleting.pending === undefined ? "" : described(deleting.pending)}</strong>: what the subject's role
          and other grants give stays.
        </p>
      </Confirm>
    </>
  );
};
