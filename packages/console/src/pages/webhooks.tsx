import * as t from "io-ts";
import { useState } from "preact/hooks";
import { CreatedWebhook, PingAnswer, Webhook, WEBHOOK_KINDS } from "@sdwan-connections/core/wire";
import { call, callJson } from "../api.js";
import { Confirm, AdminForm, ListTable, RowButton, useAdminList, useConfirmation } from "../components/admin-list.js";
import { Field } from "../components/field.js";
import { SecretOnce } from "../components/secret-once.js";
import { Time } from "../components/time.js";
import { href } from "../router.js";
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
  const { session, loaded, action } = useAdminList("/webhooks", Webhooks);
  const { problem } = action;
  const [kind, setKind] = useState<string>("cloudevents");
  const [created, setCreated] = useState<{ readonly url: string; readonly secret: string } | undefined>(undefined);

  const add = (data: FormData, element: HTMLFormElement): void => {
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
    action.run(callJson(session.authorization, "POST", "/webhooks", CreatedWebhook, { body }), (made) => {
      element.reset();
      setKind("cloudevents");
      setCreated({ url: made.url, secret: made.secret });
      return `Added the webhook to ${made.url}.`;
    });
  };

  const pingOne = (webhook: Webhook): void =>
    action.run(ping(session.authorization, webhook), (outcome) => outcome, { again: false });

  const deleting = useConfirmation((webhook: Webhook) =>
    action.run(
      call(session.authorization, "DELETE", `/webhooks/${encodeURIComponent(webhook.id)}`),
      () => `Deleted the webhook to ${webhook.url}.`,
    ),
  );

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
      <AdminForm title="Add a webhook" action={action} fields={FIELDS} submit="Add webhook" onSubmit={add}>
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
      </AdminForm>
      <ListTable
        title="Every webhook"
        loaded={loaded}
        empty="No webhooks."
        caption="Every webhook, oldest first"
        columns={["URL", "Kind", "Event types", "State", "Actions"]}
        row={(webhook) => (
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
              <RowButton action={action} label={`Ping ${webhook.url}`} onClick={() => pingOne(webhook)}>
                Ping
              </RowButton>
              <a
                class="button"
                href={href({ page: "webhook", id: webhook.id })}
                aria-label={`Deliveries of ${webhook.url}`}
              >
                Deliveries
              </a>
              <RowButton action={action} label={`Delete ${webhook.url}`} danger onClick={() => deleting.ask(webhook)}>
                Delete
              </RowButton>
            </td>
          </tr>
        )}
      />
      <Confirm confirmation={deleting} title="Delete the webhook?">
        <p>
          <strong>{deleting.pending?.url}</strong> gets no more events, and its deliveries (pending ones too) go with
          it. This cannot be undone.
        </p>
      </Confirm>
    </>
  );
};
