import { useEffect, useRef, useState } from "preact/hooks";
import { ConnectionDetails, type Problem } from "@sdwan-connections/core/wire";
import { aliasPath, call, getJson } from "../api.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { Field } from "../components/field.js";
import { focusFirstInvalid } from "../focus.js";
import { ProblemMessage } from "../components/problem.js";
import { href, navigate } from "../router.js";
import { isAdmin, useSession } from "../session.js";
import { problemOf, useLoad } from "../use-load.js";

const FIELDS = ["alias", "orchestratorUrl", "apiKey", "apiKeyRef"];

type Submission = "dry-run" | "save" | "force";

/**
 * An edit's PUT body: only what changed (an empty key keeps the stored one). A form left as it was sends its URL, so
 * that Save and Dry run validate the connection as stored (an update that changes nothing keeps the version), and a
 * URL typed back to the one loaded is still held to If-Match: never an empty body, which the service refuses.
 */
const changesOf = (
  stored: { readonly orchestratorUrl: string } | undefined,
  orchestratorUrl: string,
  key: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, string | undefined>> => {
  const changes = { ...(stored?.orchestratorUrl === orchestratorUrl ? {} : { orchestratorUrl }), ...key };
  return Object.values(changes).some((value) => value !== undefined) ? changes : { orchestratorUrl };
};

/**
 * Add (no `alias`) or edit a connection. Editing reads the connection as
 * stored (its URL, and its version for `If-Match`) without asking the
 * orchestrator. The apiKey field is write-only: it is never filled in by the
 * console, and its value lives in the field only (never in the page's state),
 * read when a request is sent; it stays there for the life of the form, so a
 * refusal or a dry run does not ask for it again.
 */
export const ConnectionForm = ({ alias }: { readonly alias?: string }) => {
  const session = useSession();
  const editing = alias !== undefined;
  const [current] = useLoad(
    () =>
      alias === undefined
        ? Promise.resolve(undefined)
        : getJson(session.authorization, `${aliasPath(alias)}?stored=true`, ConnectionDetails),
    [alias, session],
  );
  const form = useRef<HTMLFormElement>(null);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [confirmingForce, setConfirmingForce] = useState(false);
  useEffect(() => focusFirstInvalid(form.current), [problem]);

  const send = (submission: Submission): void => {
    const element = form.current;
    if (element === null) return;
    const data = new FormData(element);
    const text = (name: string): string => String(data.get(name) ?? "");
    const apiKey = text("apiKey");
    // Where the key is kept instead (SPEC §12, admins only): sent in place of the key; both given, the service names both.
    const apiKeyRef = text("apiKeyRef");
    const key = { ...(apiKey === "" ? {} : { apiKey }), ...(apiKeyRef === "" ? {} : { apiKeyRef }) };
    const orchestratorUrl = text("orchestratorUrl");
    const query = submission === "dry-run" ? "?dryrun=true" : submission === "force" ? "?force=true" : "";
    const request =
      alias === undefined
        ? call(session.authorization, "POST", `/connections${query}`, {
            body: { alias: text("alias"), orchestratorUrl, ...key },
          })
        : call(session.authorization, "PUT", `${aliasPath(alias)}${query}`, {
            body: changesOf(
              current.state === "ready" ? current.value : undefined,
              orchestratorUrl,
              current.state === "ready" && apiKeyRef === current.value?.apiKeyRef
                ? { ...key, apiKeyRef: undefined }
                : key,
            ),
            headers:
              current.state === "ready" && current.value !== undefined
                ? { "if-match": `"${current.value.version}"` }
                : {},
          });
    setBusy(true);
    setNotice(undefined);
    request.then(
      () => {
        setBusy(false);
        setProblem(undefined);
        if (submission === "dry-run") setNotice("Dry run successful: the orchestrator accepts it. Nothing was saved.");
        else navigate({ page: "connection", alias: alias ?? text("alias") });
      },
      (error: unknown) => {
        setBusy(false);
        setProblem(problemOf(error));
      },
    );
  };

  const submit = (event: SubmitEvent): void => {
    event.preventDefault();
    if (busy) return;
    const submitter = event.submitter as HTMLButtonElement | null;
    const submission = (submitter?.value ?? "save") as Submission;
    if (submission === "force") setConfirmingForce(true);
    else send(submission);
  };

  const title = editing ? `Edit ${alias}` : "Add a connection";
  // The heading from the first render on, so that it takes the focus after a page change (app.tsx), as every page's does.
  const heading = <h1 tabIndex={-1}>{title}</h1>;
  if (current.state !== "ready")
    return (
      <>
        {heading}
        {current.state === "loading" ? (
          <p aria-live="polite">Loading…</p>
        ) : (
          <ProblemMessage problem={current.problem} />
        )}
      </>
    );
  return (
    <>
      {heading}
      <form ref={form} onSubmit={submit} aria-label={title} novalidate>
        {editing ? null : (
          <Field
            name="alias"
            label="Alias"
            hint="Letters, digits, '.', '_' and '-'; at most 64."
            problem={problem}
            required
            autocomplete="off"
          />
        )}
        <Field
          name="orchestratorUrl"
          label="Orchestrator URL"
          hint="http(s)://host…"
          problem={problem}
          required={!editing}
          defaultValue={current.value?.orchestratorUrl}
          autocomplete="url"
          inputMode="url"
        />
        <Field
          name="apiKey"
          label="API key"
          hint={
            editing ? "Leave empty to keep the stored key. It is never shown." : "Write-only: it is never shown again."
          }
          problem={problem}
          type="password"
          autocomplete="new-password"
        />
        {isAdmin(session) ? (
          <Field
            name="apiKeyRef"
            label="Or: where the key is kept"
            hint="file:NAME (in the service's SDWAN_APIKEY_DIR, e.g. a mounted Kubernetes Secret) or env:SDWAN_APIKEY_…; the service reads the key there whenever it uses it and never stores it. Leave the API key empty."
            problem={problem}
            defaultValue={current.value?.apiKeyRef}
            autocomplete="off"
          />
        ) : null}
        {problem === undefined ? null : <ProblemMessage problem={problem} shownBesideFields={FIELDS} />}
        {problem?.status === 422 ? <p class="hint">To save it anyway, choose "Save without validation".</p> : null}
        {notice === undefined ? null : (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        {/* aria-disabled while busy, not disabled: a disabled button drops the focus to the page's body. */}
        <div class="actions">
          <button type="submit" class="primary" name="submission" value="save" aria-disabled={busy}>
            {editing ? "Save" : "Add"}
          </button>
          <button type="submit" name="submission" value="dry-run" aria-disabled={busy}>
            Dry run
          </button>
          <button type="submit" name="submission" value="force" aria-disabled={busy}>
            Save without validation…
          </button>
          <a class="button" href={editing ? href({ page: "connection", alias }) : href({ page: "connections" })}>
            Cancel
          </a>
        </div>
      </form>
      <ConfirmDialog
        open={confirmingForce}
        title="Save without validation?"
        confirmLabel="Save without validation"
        onCancel={() => setConfirmingForce(false)}
        onConfirm={() => {
          setConfirmingForce(false);
          send("force");
        }}
      >
        <p>The orchestrator is not asked: a wrong key or URL is saved as given, and shows as invalid later.</p>
      </ConfirmDialog>
    </>
  );
};
