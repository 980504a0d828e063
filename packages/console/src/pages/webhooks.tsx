import * as t from "io-ts";
import { useRef, useState } from "preact/hooks";
import { call, callJson, CreatedWebhook, getJson, PingAnswer, Webhook, WEBHOOK_KINDS, type Problem } from "../api.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { Field } from "../components/field.js";
import { ProblemMessage } from "../components/problem.js";
import { SecretOnce } from "../components/secret-once.js";
import { Time } from "../components/time.js";
import { href } from "../router.js";
import { useSession } from "../session.js";
import { problemOf, useLoad } from "../use-load.js";
import { parseTypes, pingOutcome, typesText } from "../webhook-words.js";

const Webhooks = t.array(Webhook);
const FIELDS = ["url", "kind", "types", "username", "password"];

/** Pings a webhook: the receiver's answer in one sentence. */
export const ping = (authorization: string, webhook: Webhook): Promise<string> =>
  callJson(authorization, "POST", `/webhooks/${encodeURIComponent(webhook.id)}/ping`, PingAnswer).then((answer) =>
    pingOutcome(webhook.url, answer),
  );

/** Whether a webhook still gets events: a receiver that answered 410 Gone turned it off. */
export const WebhookState = ({ webhook }: { readonly webhook: Webhook }) =>
  webhook.disabledAt === null ? (
    <>active</>
  ) : (
    <>
      disabled (the receiver answered 410 Gone) since <Time at={webhook.disabledAt} />
    </>
  );

/**
 * SPEC §9's webhooks, for admins: every webhook (never a secret), a form to add one (CloudEvents, or OpenNMS events
 * with its REST user; the signing secret shown once), ping, delete behind a confirmation, and each one's deliveries.
 */
export const WebhooksPage = () => {
  const session = useSession();
  const [loaded, reload] = useLoad(() => getJson(session.authorization, "/webhooks", Webhooks), [session]);
  const form = useRef<HTMLFormElement>(null);
  const [kind, setKind] = useState<string>("cloudevents");
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [created, setCreated] = useState<{ readonly url: string; readonly secret: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<Webhook | undefined>(undefined);

  const settled = (message: string, again = true): void => {
    setBusy(false);
    setProblem(undefined);
    setNotice(message);
    if (again) reload();
  };
  const failed = (error: unknown): void => {
    setBusy(false);
    setNotice(undefined);
    setProblem(problemOf(error));
  };

  const add = (event: SubmitEvent): void => {
    event.preventDefault();
    const element = form.current;
    if (element === null) return;
    const data = new FormData(element);
    const types = parseTypes(String(data.get("types") ?? ""));
    const body = {
      url: String(data.get("url") ?? ""),
      kind,
      ...(types.length === 0 ? {} : { types }),
      // OpenNMS's REST user: read from the fields when sent, never kept in the page's state.
      ...(kind === "opennms"
        ? { username: String(data.get("username") ?? ""), password: String(data.get("password") ?? "") }
        : {}),
    };
    setBusy(true);
    callJson(session.authorization, "POST", "/webhooks", CreatedWebhook, { body }).then((made) => {
      element.reset();
      setKind("cloudevents");
      setCreated({ url: made.url, secret: made.secret });
      settled(`Added the webhook to ${made.url}.`);
    }, failed);
  };

  const pingOne = (webhook: Webhook): void => {
    setBusy(true);
    ping(session.authorization, webhook).then((outcome) => settled(outcome, false), failed);
  };

  const remove = (webhook: Webhook): void => {
    setDeleting(undefined);
    setBusy(true);
    call(session.authorization, "DELETE", `/webhooks/${encodeURIComponent(webhook.id)}`).then(
      () => settled(`Deleted the webhook to ${webhook.url}.`),
      failed,
    );
  };

  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p class="note">
        Events posted to receivers as they happen, signed (Standard Webhooks), retried until taken: CloudEvents as JSON,
        or OpenNMS events to its <code>/opennms/rest/events</code>.
      </p>
      {created === undefined ? null : (
        <SecretOnce
          label={`The signing secret of ${created.url}`}
          secret={created.secret}
          onDone={() => setCreated(undefined)}
        />
      )}
      <form ref={form} onSubmit={add} aria-label="Add a webhook" novalidate>
        <h2>Add a webhook</h2>
        <Field
          name="url"
          label="URL"
          hint="https: (http: only if the service allows it)."
          problem={problem}
          type="url"
          required
          autocomplete="off"
        />
        <Field
          name="kind"
          label="Kind"
          problem={problem}
          options={WEBHOOK_KINDS}
          value={kind}
          onChange={(event: Event) => setKind((event.currentTarget as HTMLSelectElement).value)}
        />
        {kind === "opennms" ? (
          <>
            <Field name="username" label="OpenNMS user" problem={problem} required autocomplete="off" />
            <Field
              name="password"
              label="OpenNMS password"
              hint="Kept sealed by the service, never shown again."
              problem={problem}
              type="password"
              required
              autocomplete="new-password"
            />
          </>
        ) : null}
        <Field
          name="types"
          label="Event types"
          hint="Comma-separated, * a wildcard (connection.health.*, connection.key.*, connection.key.renewalFailed); empty: every event."
          problem={problem}
          autocomplete="off"
          spellcheck={false}
        />
        {problem === undefined ? null : <ProblemMessage problem={problem} shownBesideFields={FIELDS} />}
        {notice === undefined ? null : (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Add webhook
          </button>
        </div>
      </form>
      <section aria-label="Every webhook">
        <h2>Every webhook</h2>
        {loaded.state === "loading" ? <p aria-live="polite">Loading…</p> : null}
        {loaded.state === "failed" ? <ProblemMessage problem={loaded.problem} /> : null}
        {loaded.state === "ready" && loaded.value.length === 0 ? <p>No webhooks.</p> : null}
        {loaded.state === "ready" && loaded.value.length > 0 ? (
          <table class="stacks">
            <caption class="visually-hidden">Every webhook, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Kind</th>
                <th scope="col">Event types</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {loaded.value.map((webhook) => (
                <tr key={webhook.id}>
                  <td class="title">
                    <a href={href({ page: "webhook", id: webhook.id })}>{webhook.url}</a>
                  </td>
                  <td data-label="Kind">{webhook.kind}</td>
                  <td data-label="Event types">{typesText(webhook.types)}</td>
                  <td data-label="State">
                    <WebhookState webhook={webhook} />
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => pingOne(webhook)}
                      aria-label={`Ping ${webhook.url}`}
                    >
                      Ping
                    </button>
                    <a
                      class="button"
                      href={href({ page: "webhook", id: webhook.id })}
                      aria-label={`Deliveries of ${webhook.url}`}
                    >
                      Deliveries
                    </a>
                    <button
                      type="button"
                      class="danger"
                      disabled={busy}
                      onClick={() => setDeleting(webhook)}
                      aria-label={`Delete ${webhook.url}`}
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
        title="Delete the webhook?"
        confirmLabel="Delete"
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => deleting !== undefined && remove(deleting)}
      >
        <p>
          <strong>{deleting?.url}</strong> gets no more events, and its deliveries (pending ones too) go with it. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
};
