import * as t from "io-ts";
import { useState } from "preact/hooks";
import { Delivery, DELIVERY_STATUSES, Webhook } from "@sdwan-connections/core/wire";
import { call, getJson } from "../api.js";
import { ListTable, Outcome, RowButton, useAction } from "../components/admin-list.js";
import { ProblemMessage } from "../components/problem.js";
import { Time } from "../components/time.js";
import { href } from "../router.js";
import { useSession } from "../session.js";
import { useLoad } from "../use-load.js";
import { answerOf, typesText } from "../webhook-words.js";
import { ping, WebhookState } from "./webhooks.js";

const Deliveries = t.array(Delivery);
/** The status filter's choices: every delivery, or those of one status (`?status=`). */
const FILTERS = ["every", ...DELIVERY_STATUSES];
/** The newest deliveries a page shows: the most the service gives in one answer. */
const LIMIT = 100;

/** How many deliveries are shown: "1 dead delivery, newest first". */
const counted = (count: number, status: string): string =>
  `${count} ${status === "every" ? "" : `${status} `}${count === 1 ? "delivery" : "deliveries"}, newest first${count === LIMIT ? ` (the newest ${LIMIT})` : ""}.`;

/** When a delivery is due (pending) or was settled. */
const WhenCell = ({ delivery }: { readonly delivery: Delivery }) => (
  <td data-label={delivery.status === "pending" ? "Next try" : "Settled"}>
    <Time at={delivery.nextAttemptAt} />
  </td>
);

/**
 * One webhook and its newest deliveries (SPEC §9): each one's status, attempts and the last answer with its latency,
 * filtered by status; a dead or delivered one can be sent again (a new attempt of the same event, same `webhook-id`).
 */
export const WebhookPage = ({ id }: { readonly id: string }) => {
  const session = useSession();
  const path = `/webhooks/${encodeURIComponent(id)}`;
  const [status, setStatus] = useState("every");
  const [webhook] = useLoad(() => getJson(session.authorization, path, Webhook), [session, id]);
  const query = `?limit=${LIMIT}${status === "every" ? "" : `&status=${status}`}`;
  const [deliveries, , refresh] = useLoad(
    () => getJson(session.authorization, `${path}/deliveries${query}`, Deliveries),
    [session, id, query],
  );
  const action = useAction(refresh);
  const redeliver = (delivery: Delivery): void =>
    action.run(
      call(session.authorization, "POST", `${path}/deliveries/${encodeURIComponent(delivery.id)}/redeliver`),
      () => `Sending event ${delivery.eventId} again: a new attempt, with the same webhook-id.`,
    );

  if (webhook.state === "loading") return <p aria-live="polite">Loading…</p>;
  if (webhook.state === "failed")
    return (
      <>
        <h1 tabIndex={-1}>Webhook</h1>
        <ProblemMessage problem={webhook.problem} />
        <p>
          <a href={href({ page: "webhooks" })}>Every webhook</a>
        </p>
      </>
    );
  const hook = webhook.value;
  return (
    <>
      <p class="note">
        <a href={href({ page: "webhooks" })}>Webhooks</a> /
      </p>
      <h1 tabIndex={-1} class="wrap-anywhere">
        {hook.url}
      </h1>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{hook.kind}</dd>
        <dt>Event types</dt>
        <dd>{typesText(hook.types)}</dd>
        <dt>Added</dt>
        <dd>
          <Time at={hook.createdAt} />
        </dd>
        <dt>State</dt>
        <dd>
          <WebhookState webhook={hook} />
        </dd>
      </dl>
      <div class="actions">
        <button
          type="button"
          disabled={action.busy}
          onClick={() => action.run(ping(session.authorization, hook), (outcome) => outcome, { again: false })}
        >
          Ping
        </button>
      </div>
      <Outcome action={action} />
      <section aria-label="Deliveries">
        <h2>Deliveries</h2>
        <div class="toolbar">
          <div class="field inline">
            <label for="status">Status</label>
            <select id="status" value={status} onChange={(event) => setStatus(event.currentTarget.value)}>
              {FILTERS.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </select>
          </div>
          <button type="button" onClick={refresh}>
            Refresh
          </button>
        </div>
        <ListTable
          loaded={deliveries}
          empty={status === "every" ? "No deliveries yet." : `No ${status} deliveries.`}
          note={(items) => counted(items.length, status)}
          caption="The newest deliveries, newest first"
          columns={["Event", "Status", "Attempts", "Last answer", "Latency", "Next try or settled", "Actions"]}
          row={(delivery) => {
            const last = delivery.attempts.at(-1);
            return (
              <tr key={delivery.id}>
                <td class="title">
                  <code>{delivery.eventId}</code>
                </td>
                <td data-label="Status">
                  <span class={`badge delivery-${delivery.status}`}>{delivery.status}</span>
                </td>
                <td data-label="Attempts" class="number">
                  {delivery.attempts.length}
                </td>
                <td data-label="Last answer">{last === undefined ? "" : answerOf(last)}</td>
                <td data-label="Latency" class="number">
                  {last === undefined ? "" : `${last.latencyMs} ms`}
                </td>
                <WhenCell delivery={delivery} />
                <td class="actions">
                  {delivery.status === "pending" ? null : (
                    <RowButton
                      action={action}
                      label={`Redeliver ${delivery.eventId}`}
                      onClick={() => redeliver(delivery)}
                    >
                      Redeliver
                    </RowButton>
                  )}
                </td>
              </tr>
            );
          }}
        />
      </section>
    </>
  );
};
