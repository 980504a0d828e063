import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import {
  aliasPath,
  AuditPage,
  call,
  ConnectionAccess,
  ConnectionDetail,
  ConnectionStored,
  getJson,
  Health,
  healthOf,
  type LiveEvent,
  type Problem,
} from "../api.js";
import { DeleteDialog } from "../components/delete-dialog.js";
import { LastKnownHealth } from "../components/health-badge.js";
import { KeyExpiryBadge } from "../components/key-expiry-badge.js";
import { Time } from "../components/time.js";
import { ProblemMessage } from "../components/problem.js";
import { may } from "../rights.js";
import { href, navigate } from "../router.js";
import { isAdmin, useSession, type Session } from "../session.js";
import type { FollowState } from "../events.js";
import { useEvents } from "../use-events.js";
import { problemOf, useLoad, type Loaded } from "../use-load.js";

const AUDIT_ENTRIES = 50;
/** The events the page keeps, newest first. */
const RECENT_EVENTS = 10;
const TYPE_PREFIX = "org.sdwan-connections.";

/** Calls `refresh` each time `changes` goes up (an event said what `refresh` reads has changed). */
const useRefreshOn = (changes: number, refresh: () => void): void => {
  useEffect(() => {
    if (changes > 0) refresh();
  }, [changes]);
};

const Section = <A,>({
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
const HealthHistory = ({
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
              <table class="stacks">
                <caption class="visually-hidden">Last health checks, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">At</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Latency (ms)</th>
                    <th scope="col">Reason</th>
                  </tr>
                </thead>
                <tbody>
                  {mine.checks.map((check) => (
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
                  ))}
                </tbody>
              </table>
            )}
          </>
        );
      }}
    </Section>
  );
};

const AuditTrail = ({
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
          <table class="stacks">
            <caption class="visually-hidden">The connection's last {AUDIT_ENTRIES} audit entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Fields</th>
                <th scope="col">Validation</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
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
              ))}
            </tbody>
          </table>
        )
      }
    </Section>
  );
};

/** Who may do what on the connection beside the roles (admins only): each subject its grants name, and its verbs. */
const AccessPanel = ({ session, alias }: { readonly session: Session; readonly alias: string }) => {
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
            <table class="stacks">
              <caption class="visually-hidden">Who the grants covering this connection give what verbs</caption>
              <thead>
                <tr>
                  <th scope="col">Subject</th>
                  <th scope="col">May</th>
                </tr>
              </thead>
              <tbody>
                {subjects.map(({ subject, verbs }) => (
                  <tr key={subject}>
                    <td class="title">{subject}</td>
                    <td data-label="May">{verbs.join(", ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </Section>
  );
};

/** What an event says, in a few words: who made a change, a health change and why, the days a key has left. */
const eventDetail = ({ data }: LiveEvent): string => {
  if (data.to !== undefined)
    return `${data.from ?? "unknown"} → ${data.to}${data.reason == null ? "" : `: ${data.reason}`}`;
  if (data.daysLeft !== undefined)
    return data.daysLeft <= 0 ? "the key has expired" : `key: ${data.daysLeft} days left`;
  return `by ${data.actor ?? "unknown"}${data.forced === true ? " (forced)" : ""}`;
};

const FOLLOW_STATES: Record<FollowState, string> = {
  connecting: "Connecting to the event stream…",
  live: "Live: new events appear here as they happen.",
  reconnecting: "The event stream dropped: reconnecting, without missing an event…",
};

const RecentEvents = ({ events, state }: { readonly events: readonly LiveEvent[]; readonly state: FollowState }) => (
  <section aria-label="Recent events">
    <h2>Recent events</h2>
    <p class="note" role="status">
      {FOLLOW_STATES[state]}
    </p>
    {events.length === 0 ? (
      <p>None since this page opened.</p>
    ) : (
      <table class="stacks">
        <caption class="visually-hidden">The connection's events since this page opened, newest first</caption>
        <thead>
          <tr>
            <th scope="col">At</th>
            <th scope="col">Event</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id}>
              <td data-label="At">
                <Time at={event.time} />
              </td>
              <td data-label="Event" class="event-type">
                {event.type.replace(TYPE_PREFIX, "")}
              </td>
              <td data-label="Detail">{eventDetail(event)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </section>
);

/**
 * One connection: first as stored (URL, version, key date and fingerprint:
 * no orchestrator call, so at once), then its validation now (verbose), its
 * health and its audit trail. Its events follow live: each is listed, and the sections it changes are read
 * again (the stored form on a change or a key warning, the health on a health change, the audit trail on any).
 */
export const ConnectionPage = ({ alias }: { readonly alias: string }) => {
  const session = useSession();
  const [stored, , refreshStored] = useLoad(
    () => getJson(session.authorization, `${aliasPath(alias)}?stored=true`, ConnectionStored),
    [session, alias],
  );
  const [recent, setRecent] = useState<readonly LiveEvent[]>([]);
  const [changes, setChanges] = useState({ health: 0, any: 0 });
  useEffect(() => setRecent([]), [alias]);
  const readAgain = (health: boolean): void => {
    setChanges((counts) => ({ health: counts.health + (health ? 1 : 0), any: counts.any + 1 }));
  };
  // While the page's own delete is under way, its event (which may come before the answer) reads nothing again.
  const removing = useRef(false);
  const following = useEvents(
    `alias=${encodeURIComponent(alias)}`,
    (event) => {
      if (removing.current) return;
      setRecent((events) => [event, ...events].slice(0, RECENT_EVENTS));
      const health = event.type.endsWith(".health.changed");
      if (!health) refreshStored();
      readAgain(health);
    },
    () => {
      refreshStored();
      readAgain(true);
    },
  );
  // Validating asks the orchestrator: a principal that may only read the connection is not offered it.
  const [validation] = useLoad(
    () =>
      may(session, "use", alias)
        ? getJson(session.authorization, `${aliasPath(alias)}?verbose=true`, ConnectionDetail)
        : Promise.resolve(undefined),
    [session, alias],
  );
  const [deleting, setDeleting] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);

  const remove = (version: number): void => {
    setDeleting(false);
    removing.current = true;
    call(session.authorization, "DELETE", aliasPath(alias), { headers: { "if-match": `"${version}"` } }).then(
      () => navigate({ page: "connections" }),
      (error: unknown) => {
        removing.current = false;
        setProblem(problemOf(error));
      },
    );
  };

  // An unknown alias: one answer for the page, not one per section asking.
  const unknown = [stored, validation].find((loaded) => loaded.state === "failed" && loaded.problem.status === 404);
  if (unknown?.state === "failed") {
    return (
      <>
        <h1 tabIndex={-1}>{alias}</h1>
        <ProblemMessage problem={unknown.problem} />
      </>
    );
  }
  return (
    <>
      <h1 tabIndex={-1}>{alias}</h1>
      {problem === undefined ? null : <ProblemMessage problem={problem} />}
      <Section title="Stored" loaded={stored}>
        {(connection) => (
          <>
            <dl class="facts">
              <dt>Orchestrator URL</dt>
              <dd>{connection.orchestratorUrl}</dd>
              <dt>Version</dt>
              <dd>{connection.version}</dd>
              <dt>Key set at</dt>
              <dd>
                {connection.apiKeySetAt === null ? "before keys were dated" : <Time at={connection.apiKeySetAt} />}
              </dd>
              <dt>Key kept</dt>
              <dd data-testid="key-place">
                {connection.apiKeyRef === undefined ? (
                  "stored (sealed in the store)"
                ) : (
                  <code>{connection.apiKeyRef}</code>
                )}
              </dd>
              <dt>Key fingerprint</dt>
              <dd>
                <code>{connection.apiKeyFingerprint}</code>
              </dd>
              <dt>Key expires</dt>
              <dd>
                <KeyExpiryBadge
                  expiresAt={connection.apiKeyExpiresAt}
                  source={connection.apiKeyExpirySource}
                  unknown="unknown"
                />
              </dd>
            </dl>
            {may(session, "manage", alias) ? (
              <div class="actions">
                <a class="button" href={href({ page: "edit", alias })}>
                  Edit
                </a>
                <button type="button" class="danger" onClick={() => setDeleting(true)}>
                  Delete
                </button>
              </div>
            ) : null}
            <DeleteDialog
              alias={deleting ? alias : undefined}
              onCancel={() => setDeleting(false)}
              onConfirm={() => remove(connection.version)}
            />
          </>
        )}
      </Section>
      <Section title="Validation" loaded={validation}>
        {(connection) =>
          connection === undefined ? (
            <p>This principal may only read this connection: validating it (and listing its customers) needs "use".</p>
          ) : (
            <>
              <dl class="facts">
                <dt>Valid</dt>
                <dd data-testid="valid">
                  <span class={`badge ${connection.valid ? "valid" : "invalid"}`}>
                    {connection.valid ? "valid" : "not valid"}
                  </span>
                </dd>
                {connection.type === undefined ? null : (
                  <>
                    <dt>Type</dt>
                    <dd>{connection.type}</dd>
                  </>
                )}
                {connection.reason === undefined ? null : (
                  <>
                    <dt>Reason</dt>
                    <dd>{connection.reason}</dd>
                  </>
                )}
              </dl>
              {connection.type === "partner" ? (
                <div class="actions">
                  <a class="button primary" href={href({ page: "customers", alias })}>
                    Customers
                  </a>
                </div>
              ) : null}
            </>
          )
        }
      </Section>
      {isAdmin(session) ? <AccessPanel session={session} alias={alias} /> : null}
      <HealthHistory
        session={session}
        alias={alias}
        validated={validation.state !== "loading"}
        changes={changes.health}
      />
      <RecentEvents events={recent} state={following} />
      {isAdmin(session) ? (
        <AuditTrail session={session} alias={alias} changes={changes.any} />
      ) : (
        <section aria-label="Audit trail">
          <h2>Audit trail</h2>
          <p>Only admins read the audit trail.</p>
        </section>
      )}
    </>
  );
};
