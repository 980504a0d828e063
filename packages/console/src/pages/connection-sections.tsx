import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { aliasPath, AuditPage, ConnectionAccess, getJson, Health, healthOf } from "../api.js";
import { LastKnownHealth } from "../components/health-badge.js";
import { Time } from "../components/time.js";
import { ProblemMessage } from "../components/problem.js";
import { href } from "../router.js";
import type { Session } from "../session.js";
import { useLoad, type Loaded } from "../use-load.js";

// The connection page's sections that read beside the stored connection: its health, who may do what, its audit trail.

const AUDIT_ENTRIES = 50;

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
