import * as t from "io-ts";
import { useState } from "preact/hooks";
import { IssuedToken, type Problem, ServiceToken } from "@sdwan-connections/core/wire";
import { call, callJson, consoleProblem } from "../api.js";
import { Confirm, AdminForm, ListTable, RowButton, useAdminList, useConfirmation } from "../components/admin-list.js";
import { Field } from "../components/field.js";
import { SecretOnce } from "../components/secret-once.js";
import { fieldMessage } from "../components/problem.js";
import { Time } from "../components/time.js";
import { parseGrantLines } from "../grant-lines.js";

const Tokens = t.array(ServiceToken);
/** The fields whose errors are shown beside them (a grant line's, in the problem's list). */
const FIELDS = ["name", "expiresInDays", "role", "grants"];
/** The role select's choices: the first sends none (a viewer, or with grants no role: only what they give). */
const ROLES = ["default", "viewer", "admin"];

const badGrants = (line: number): Problem => ({
  ...consoleProblem("Invalid input", "A grant line cannot be read."),
  errors: [{ field: "grants", message: `line ${line} is not PATTERN VERB (a verb is read, use or manage)` }],
});

type Pending = { readonly action: "renew" | "revoke"; readonly token: ServiceToken };

/**
 * SPEC §11's service tokens, for admins: every token (never a secret), a form to make one (its secret shown once),
 * renewal (a new secret, shown once; the old one keeps working for a day) and revocation, each behind a confirmation.
 */
export const TokensPage = () => {
  const { session, loaded, action } = useAdminList("/tokens", Tokens);
  const { problem } = action;
  // The grants' errors beside their field: a line the form could not read, or what the service refused of one.
  const grantsMessage = fieldMessage(problem?.errors, "grants");
  const [issued, setIssued] = useState<{ readonly name: string; readonly token: string } | undefined>(undefined);

  const create = (data: FormData, element: HTMLFormElement): void => {
    const read = parseGrantLines(String(data.get("grants") ?? ""));
    if ("badLine" in read) {
      action.refuse(badGrants(read.badLine));
      return;
    }
    const role = String(data.get("role"));
    const body = {
      name: String(data.get("name") ?? ""),
      // Not a number (empty, or text): sent as it is, so the service names the field.
      expiresInDays: Number(data.get("expiresInDays")) || String(data.get("expiresInDays") ?? ""),
      ...(role === "default" ? {} : { role }),
      ...(read.grants.length === 0 ? {} : { grants: read.grants }),
    };
    action.run(callJson(session.authorization, "POST", "/tokens", IssuedToken, { body }), (made) => {
      element.reset();
      setIssued({ name: made.name, token: made.token });
      return `Made the service token ${made.name}.`;
    });
  };

  const confirming = useConfirmation(({ action: what, token }: Pending) => {
    const path = `/tokens/${encodeURIComponent(token.id)}`;
    if (what === "revoke")
      action.run(call(session.authorization, "DELETE", path), () => `Revoked the service token ${token.name}.`);
    else
      action.run(callJson(session.authorization, "POST", `${path}/renew`, IssuedToken), (renewed) => {
        setIssued({ name: renewed.name, token: renewed.token });
        return `Renewed the service token ${renewed.name}: its old secret works for 24 hours more.`;
      });
  });

  return (
    <>
      <h1 tabIndex={-1}>Service tokens</h1>
      <p class="note">
        For scripts and CI: sent as <code>Authorization: Bearer sdw_…</code>, acting as <code>token:NAME</code> with its
        role and its grants. The service keeps only each secret's hash: a secret is shown once, when it is made or
        renewed.
      </p>
      {issued === undefined ? null : (
        <SecretOnce label={`The secret of ${issued.name}`} secret={issued.token} onDone={() => setIssued(undefined)} />
      )}
      <AdminForm title="Make a service token" action={action} fields={FIELDS} submit="Make token" onSubmit={create}>
        <Field
          name="name"
          label="Name"
          hint="Letters, digits, '.', '_', '-'; its principal is token:NAME."
          problem={problem}
          required
          autocomplete="off"
        />
        <Field
          name="expiresInDays"
          label="Expires in (days)"
          hint="1 to 365."
          problem={problem}
          type="number"
          min={1}
          max={365}
          defaultValue="90"
          required
        />
        <Field
          name="role"
          label="Role"
          hint="default: a viewer, or with grants no role (only what the grants give)."
          problem={problem}
          options={ROLES}
        />
        <div class="field">
          <label for="grants">Grants</label>
          <textarea
            id="grants"
            name="grants"
            rows={3}
            spellcheck={false}
            aria-describedby={grantsMessage === undefined ? "grants-hint" : "grants-hint grants-error"}
            aria-invalid={grantsMessage !== undefined}
          />
          <p class="hint" id="grants-hint">
            One per line: an alias pattern and a verb (read, use or manage), e.g. <code>emea-* read</code>.
          </p>
          {grantsMessage === undefined ? null : (
            <p class="field-error" id="grants-error">
              {grantsMessage}
            </p>
          )}
        </div>
      </AdminForm>
      <ListTable
        title="Every service token"
        loaded={loaded}
        empty="No service tokens."
        caption="Every service token"
        columns={["Name", "Role", "Expires", "Last used", "Made by", "Actions"]}
        row={(token) => (
          <tr key={token.id}>
            <td class="title">{token.name}</td>
            <td data-label="Role">{token.role ?? "none (grants only)"}</td>
            <td data-label="Expires">
              <Time at={token.expiresAt} />
            </td>
            <td data-label="Last used">{token.lastUsedAt === null ? "never" : <Time at={token.lastUsedAt} />}</td>
            <td data-label="Made by">{token.createdBy}</td>
            <td class="actions">
              <RowButton
                action={action}
                label={`Renew ${token.name}`}
                onClick={() => confirming.ask({ action: "renew", token })}
              >
                Renew
              </RowButton>
              <RowButton
                action={action}
                label={`Revoke ${token.name}`}
                danger
                onClick={() => confirming.ask({ action: "revoke", token })}
              >
                Revoke
              </RowButton>
            </td>
          </tr>
        )}
      />
      <Confirm
        confirmation={confirming}
        title={confirming.pending?.action === "renew" ? "Renew the token?" : "Revoke the token?"}
        confirmLabel={confirming.pending?.action === "renew" ? "Renew" : "Revoke"}
      >
        <p>
          <strong>{confirming.pending?.token.name}</strong>
          {confirming.pending?.action === "renew"
            ? " gets a new secret, shown once; the old one keeps working for 24 hours, time to change where it is used."
            : " stops working at once, everywhere, and its grants go with it. This cannot be undone."}
        </p>
      </Confirm>
    </>
  );
};
