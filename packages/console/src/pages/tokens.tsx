import * as t from "io-ts";
import { useRef, useState } from "preact/hooks";
import { call, callJson, getJson, IssuedToken, ServiceToken, type Problem } from "../api.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { Field } from "../components/field.js";
import { ProblemMessage } from "../components/problem.js";
import { SecretOnce } from "../components/secret-once.js";
import { Time } from "../components/time.js";
import { parseGrantLines } from "../grant-lines.js";
import { useSession } from "../session.js";
import { problemOf, useLoad } from "../use-load.js";

const Tokens = t.array(ServiceToken);
/** The fields whose errors are shown beside them (a grant line's, in the problem's list). */
const FIELDS = ["name", "expiresInDays", "role"];
/** The role select's choices: the first sends none (a viewer, or with grants no role: only what they give). */
const ROLES = ["default", "viewer", "admin"];

const badGrants = (line: number): Problem => ({
  title: "Invalid input",
  status: 0,
  detail: "A grant line cannot be read.",
  errors: [{ field: "grants", message: `line ${line} is not PATTERN VERB (a verb is read, use or manage)` }],
});

type Pending = { readonly action: "renew" | "revoke"; readonly token: ServiceToken };

/**
 * SPEC §11's service tokens, for admins: every token (never a secret), a form to make one (its secret shown once),
 * renewal (a new secret, shown once; the old one keeps working for a day) and revocation, each behind a confirmation.
 */
export const TokensPage = () => {
  const session = useSession();
  const [loaded, reload] = useLoad(() => getJson(session.authorization, "/tokens", Tokens), [session]);
  const form = useRef<HTMLFormElement>(null);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [issued, setIssued] = useState<{ readonly name: string; readonly token: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending | undefined>(undefined);

  const settled = (message: string): void => {
    setBusy(false);
    setProblem(undefined);
    setNotice(message);
    reload();
  };
  const failed = (error: unknown): void => {
    setBusy(false);
    setNotice(undefined);
    setProblem(problemOf(error));
  };

  const create = (event: SubmitEvent): void => {
    event.preventDefault();
    const element = form.current;
    if (element === null) return;
    const data = new FormData(element);
    const read = parseGrantLines(String(data.get("grants") ?? ""));
    if ("badLine" in read) {
      setProblem(badGrants(read.badLine));
      return;
    }
    const role = String(data.get("role"));
    const name = String(data.get("name") ?? "");
    setBusy(true);
    const body = {
      name,
      // Not a number (empty, or text): sent as it is, so the service names the field.
      expiresInDays: Number(data.get("expiresInDays")) || String(data.get("expiresInDays") ?? ""),
      ...(role === "default" ? {} : { role }),
      ...(read.grants.length === 0 ? {} : { grants: read.grants }),
    };
    callJson(session.authorization, "POST", "/tokens", IssuedToken, { body }).then((made) => {
      element.reset();
      setIssued({ name: made.name, token: made.token });
      settled(`Made the service token ${made.name}.`);
    }, failed);
  };

  const act = ({ action, token }: Pending): void => {
    setPending(undefined);
    setBusy(true);
    const path = `/tokens/${encodeURIComponent(token.id)}`;
    if (action === "revoke") {
      call(session.authorization, "DELETE", path).then(
        () => settled(`Revoked the service token ${token.name}.`),
        failed,
      );
      return;
    }
    callJson(session.authorization, "POST", `${path}/renew`, IssuedToken).then((renewed) => {
      setIssued({ name: renewed.name, token: renewed.token });
      settled(`Renewed the service token ${renewed.name}: its old secret works for 24 hours more.`);
    }, failed);
  };

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
      <form ref={form} onSubmit={create} aria-label="Make a service token" novalidate>
        <h2>Make a service token</h2>
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
            aria-describedby="grants-hint"
            aria-invalid={problem?.errors?.some((error) => error.field.startsWith("grants")) === true}
          />
          <p class="hint" id="grants-hint">
            One per line: an alias pattern and a verb (read, use or manage), e.g. <code>emea-* read</code>.
          </p>
        </div>
        {problem === undefined ? null : <ProblemMessage problem={problem} shownBesideFields={FIELDS} />}
        {notice === undefined ? null : (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Make token
          </button>
        </div>
      </form>
      <section aria-label="Every service token">
        <h2>Every service token</h2>
        {loaded.state === "loading" ? <p aria-live="polite">Loading…</p> : null}
        {loaded.state === "failed" ? <ProblemMessage problem={loaded.problem} /> : null}
        {loaded.state === "ready" && loaded.value.length === 0 ? <p>No service tokens.</p> : null}
        {loaded.state === "ready" && loaded.value.length > 0 ? (
          <table class="stacks">
            <caption class="visually-hidden">Every service token</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Made by</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {loaded.value.map((token) => (
                <tr key={token.id}>
                  <td class="title">{token.name}</td>
                  <td data-label="Role">{token.role ?? "none (grants only)"}</td>
                  <td data-label="Expires">
                    <Time at={token.expiresAt} />
                  </td>
                  <td data-label="Last used">{token.lastUsedAt === null ? "never" : <Time at={token.lastUsedAt} />}</td>
                  <td data-label="Made by">{token.createdBy}</td>
                  <td class="actions">
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => setPending({ action: "renew", token })}
                      aria-label={`Renew ${token.name}`}
                    >
                      Renew
                    </button>
                    <button
                      type="button"
                      class="danger"
                      disabled={busy}
                      onClick={() => setPending({ action: "revoke", token })}
                      aria-label={`Revoke ${token.name}`}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
      <ConfirmDialog
        open={pending !== undefined}
        title={pending?.action === "renew" ? "Renew the token?" : "Revoke the token?"}
        confirmLabel={pending?.action === "renew" ? "Renew" : "Revoke"}
        onCancel={() => setPending(undefined)}
        onConfirm={() => pending !== undefined && act(pending)}
      >
        <p>
          <strong>{pending?.token.name}</strong>
          {pending?.action === "renew"
            ? " gets a new secret, shown once; the old one keeps working for 24 hours, time to change where it is used."
            : " stops working at once, everywhere, and its grants go with it. This cannot be undone."}
        </p>
      </ConfirmDialog>
    </>
  );
};
