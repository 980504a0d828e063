import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { AuditPage, type CloudEvent, ConnectionAccess, Health } from "@sdwan-connections/core/wire";
import { aliasPath, getJson, healthOf } from "../api.js";
import { LastKnownHealth } from "../components/health-badge.js";
import { ProblemMessage } from "../components/problem.js";
import { Table } from "../components/table.js";
import { Time } from "../components/time.js";
import type { FollowState } from "../events.js";
import { href } from "../router.js";
import type { Session } from "../session.js";
import { useLoad, type Loaded } from "../use-load.js";

/**
 * The connection page's sections around what is stored: its health and last checks, who may do what on it, its
 * recent events and its audit trail, each read on its own and read again when the page's events say so.
 */

export const AUDIT_ENTRIES = 50;
/** The events the page keeps, newest first. */
export const RECENT_EVENTS = 10;
const TYPE_PREFIX = "org.sdwan-connections.";

/** Calls `refresh` each time `changes` goes up (an event said what `refresh` reads has changed). */
export const useRefreshOn = (changes: number, refresh: () => void): void => {
  useEffect(() => {
    if (changes > 0) refresh();
  }, [changes]);
};

export const Section = <A,>({
  title,
  loaded,
  children,
}: {
  readonly title: string;
  readonly loaded: Loaded<A>;
  readonly children: (value: A) => ComponentChildren;
}) => (
  <section aria-label={title}>
    <h2>{title}</h2>
    {loaded.state === "loading" ? (
      <p aria-live="polite">Loading…</p>
    ) : loaded.state === "failed" ? (
      <ProblemMessage problem={loaded.problem} />
    ) : (
      children(loaded.value)
    )}
  </section>
);

/** The last known state and the last checks; read again once `validated` (the page's own validation, which records its outcome). */
export const HealthHistory = ({
  session,
  alias,
  validated,
  changes,
}: {
  readonly session: Session;
  readonly alias: string;
  readonly validated: boolean;
  /** Health changes the page's events announced. */
  readonly changes: number;
}) => {
  const [loaded, , refresh] = useLoad(
    () => getJson(session.authorization, "/health/connections", Health),
    [session, alias, validated],
  );
  useRefreshOn(changes, refresh);
  return (
    <Section title="Health" loaded={loaded}>
      {(health) => {
        const mine = healthOf(health, alias);
        return (
          <>
            <p>
              <LastKnownHealth health={mine} />
              {mine?.since == null ? null : (
                <span class="when">
                  , in this state since <Time at={mine.since} />
                </span>
              )}
            </p>
            <p class="note">
              {health.intervalSeconds === null
                ? "Background health checks are off: the state is the outcome of the last validation."
                : `Checked in the background every ${health.intervalSeconds} s, and by every validation.`}
            </p>
            {mine === undefined || mine.checks.length === 0 ? null : (
              <Table
                caption="Last health checks, newest first"
                columns={["At", "Outcome", "Latency (ms)", "Reason"]}
                items={mine.checks}
                row={(check) => (
                  <tr key={check.at}>
                    <td data-label="At">
                      <Time at={check.at} />
                    </td>
                    <td data-label="Outcome">{check.outcome}</td>
                    <td data-label="Latency (ms)" class="number">
                      {check.latencyMs}
                    </td>
                    <td data-label="Reason">{check.reason ?? null}</td>
                  </tr>
                )}
              />
            )}
          </>
        );
      }}
    </Section>
  );
};

export const AuditTrail = ({
  session,
  alias,
  changes,
}: {
  readonly session: Session;
  readonly alias: string;
  /** Events the page received: each is an audit entry. */
  readonly changes: number;
}) => {
  const [loaded, , refresh] = useLoad(
    () => getJson(session.authorization, `/audit?alias=${encodeURIComponent(alias)}&limit=${AUDIT_ENTRIES}`, AuditPage),
    [session, alias],
  );
  useRefreshOn(changes, refresh);
  return (
    <Section title="Audit trail" loaded={loaded}>
      {({ entries }) =>
        entries.length === 0 ? (
          <p>No entries.</p>
        ) : (
          <Table
            caption={`The connection's last ${AUDIT_ENTRIES} audit entries, newest first`}
            columns={["At", "Actor", "Action", "Fields", "Validation", "Outcome"]}
            items={entries}
            row={(entry) => (
              <tr key={entry.id}>
                <td data-label="At">
                  <Time at={entry.at} />
                </td>
                <td data-label="Actor">{entry.actor}</td>
                <td data-label="Action">
                  {entry.action}
                  {entry.forced ? " (forced)" : ""}
                </td>
                <td data-label="Fields">{entry.fields.join(", ")}</td>
                <td data-label="Validation">{entry.validation}</td>
                <td data-label="Outcome">
                  {entry.outcome === "failed" ? `failed: ${entry.failure ?? ""}` : (entry.detail ?? entry.outcome)}
                </td>
              </tr>
            )}
          />
        )
      }
    </Section>
  );
};

/** Who may do what on the connection beside the roles (admins only): each subject its grants name, and its verbs. */
export const AccessPanel = ({ session, alias }: { readonly session: Session; readonly alias: string }) => {
  const [loaded] = useLoad(
    () => getJson(session.authorization, `${aliasPath(alias)}/access`, ConnectionAccess),
    [session, alias],
  );
  return (
    <Section title="Access" loaded={loaded}>
      {({ subjects }) => (
        <>
          <p class="note">
            Admins manage every connection and viewers read and use every one; beside them, what grants give (
            <a href={href({ page: "grants" })}>Grants</a>).
          </p>
          {subjects.length === 0 ? (
            <p>No grant covers this connection.</p>
          ) : (
            <Table
              caption="Who the grants covering this connection give what verbs"
              columns={["Subject", "May"]}
              items={subjects}
              row={({ subject, verbs }) => (
                <tr key={subject}>
                  <td class="title">{subject}</td>
                  <td data-label="May">{verbs.join(", ")}</td>
                </tr>
              )}
            />
          )}
        </>
      )}
    </Section>
  );
};

/** What an event says, in a few words: who made a change, a health change and why, the days a key has left. */
const eventDetail = ({ data }: CloudEvent): string => {
  if ("to" in data) return `${data.from} → ${data.to}${data.reason === null ? "" : `: ${data.reason}`}`;
  if ("daysLeft" in data) return data.daysLeft <= 0 ? "the key has expired" : `key: ${data.daysLeft} days left`;
  // A renewal that failed (SPEC §12) says why; a renewal is a change by `renewal`.
  if (!("actor" in data)) return data.reason;
  return `by ${data.actor}${"forced" in data && data.forced ? " (forced)" : ""}`;
};

const FOLLOW_STATES: Record<FollowState, string> = {
  connecting: "Connecting to the event stream…",
  live: "Live: new events appear here as they happen.",
  reconnecting: "The event stream dropped: reconnecting, without missing an event…",
};

export const RecentEvents = ({
  events,
  state,
}: {
  readonly events: readonly CloudEvent[];
  readonly state: FollowState;
}) => (
  <section aria-label="Recent events">
    <h2>Recent events</h2>
    <p class="note" role="status">
      {FOLLOW_STATES[state]}
    </p>
    {events.length === 0 ? (
      <p>None since this page opened.</p>
    ) : (
      <Table
        caption="The connection's events since this page opened, newest first"
        columns={["At", "Event", "Detail"]}
        items={events}
        row={(event) => (
          <tr key={event.id}>
            <td data-label="At">
              <Time at={event.time} />
            </td>
            <td data-label="Event" class="event-type">
              {event.type.replace(TYPE_PREFIX, "")}
            </td>
            <td data-label="Detail">{eventDetail(event)}</td>
          </tr>
        )}
      />
    )}
  </section>
);
