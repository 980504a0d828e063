import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { aliasPath, AuditPage, call, ConnectionDetail, getJson, Health, type Problem } from "../api.js";
import { DeleteDialog } from "../components/delete-dialog.js";
import { HealthBadge } from "../components/health-badge.js";
import { ProblemMessage } from "../components/problem.js";
import { href, navigate } from "../router.js";
import { isAdmin, useSession, type Session } from "../session.js";
import { problemOf, useLoad, type Loaded } from "../use-load.js";

const AUDIT_ENTRIES = 50;

const Section = <A,>({ title, loaded, children }: { readonly title: string; readonly loaded: Loaded<A>; readonly children: (value: A) => ComponentChildren }) => (
  <section aria-label={title}>
    <h2>{title}</h2>
    {loaded.state === "loading" ? <p aria-live="polite">Loading…</p> : loaded.state === "failed" ? <ProblemMessage problem={loaded.problem} /> : children(loaded.value)}
  </section>
);

const HealthHistory = ({ session, alias }: { readonly session: Session; readonly alias: string }) => {
  const [loaded] = useLoad(() => getJson(session.authorization, "/health/connections", Health), [session, alias]);
  return (
    <Section title="Health" loaded={loaded}>
      {(health) => {
        const mine = health.connections.find((connection) => connection.alias.toLowerCase() === alias.toLowerCase());
        if (health.intervalSeconds === null) return <p>Background health checks are off.</p>;
        if (mine === undefined) return <p>Not checked yet.</p>;
        return (
          <>
            <p>
              <HealthBadge state={mine.state} /> {mine.since === null ? "" : `since ${mine.since}`}
            </p>
            <table>
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
                    <td>{check.at}</td>
                    <td>{check.outcome}</td>
                    <td class="number">{check.latencyMs}</td>
                    <td>{check.reason ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        );
      }}
    </Section>
  );
};

const AuditTrail = ({ session, alias }: { readonly session: Session; readonly alias: string }) => {
  const [loaded] = useLoad(
    () => getJson(session.authorization, `/audit?alias=${encodeURIComponent(alias)}&limit=${AUDIT_ENTRIES}`, AuditPage),
    [session, alias],
  );
  return (
    <Section title="Audit trail" loaded={loaded}>
      {({ entries }) =>
        entries.length === 0 ? (
          <p>No entries.</p>
        ) : (
          <table>
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
                  <td>{entry.at}</td>
                  <td>{entry.actor}</td>
                  <td>
                    {entry.action}
                    {entry.forced ? " (forced)" : ""}
                  </td>
                  <td>{entry.fields.join(", ")}</td>
                  <td>{entry.validation}</td>
                  <td>{entry.outcome === "failed" ? `failed: ${entry.failure ?? ""}` : (entry.detail ?? entry.outcome)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Section>
  );
};

/** One connection: its validation now (verbose), its key's fingerprint and age, its health history and audit trail. */
export const ConnectionPage = ({ alias }: { readonly alias: string }) => {
  const session = useSession();
  const [loaded] = useLoad(() => getJson(session.authorization, `${aliasPath(alias)}?verbose=true`, ConnectionDetail), [session, alias]);
  const [deleting, setDeleting] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);

  const remove = (version: number | undefined): void => {
    setDeleting(false);
    call(session.authorization, "DELETE", aliasPath(alias), { headers: version === undefined ? {} : { "if-match": `"${version}"` } }).then(
      () => navigate({ page: "connections" }),
      (error: unknown) => setProblem(problemOf(error)),
    );
  };

  return (
    <>
      <h1 tabIndex={-1}>{alias}</h1>
      {problem === undefined ? null : <ProblemMessage problem={problem} />}
      <Section title="Validation" loaded={loaded}>
        {(connection) => (
          <>
            <dl class="facts">
              <dt>Orchestrator URL</dt>
              <dd>{connection.orchestratorUrl}</dd>
              <dt>Valid</dt>
              <dd data-testid="valid">
                <span class={`badge ${connection.valid ? "valid" : "invalid"}`}>{connection.valid ? "valid" : "not valid"}</span>
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
              <dt>Version</dt>
              <dd>{connection.version ?? "—"}</dd>
              <dt>Key set at</dt>
              <dd>{connection.apiKeySetAt ?? "before keys were dated"}</dd>
              <dt>Key fingerprint</dt>
              <dd>
                <code>{connection.apiKeyFingerprint ?? "—"}</code>
              </dd>
            </dl>
            <div class="actions">
              {connection.type === "partner" ? (
                <a class="button primary" href={href({ page: "customers", alias })}>
                  Customers
                </a>
              ) : null}
              {isAdmin(session) ? (
                <>
                  <a class="button" href={href({ page: "edit", alias })}>
                    Edit
                  </a>
                  <button type="button" class="danger" onClick={() => setDeleting(true)}>
                    Delete
                  </button>
                </>
              ) : null}
            </div>
            <DeleteDialog alias={deleting ? alias : undefined} onCancel={() => setDeleting(false)} onConfirm={() => remove(connection.version)} />
          </>
        )}
      </Section>
      <HealthHistory session={session} alias={alias} />
      {isAdmin(session) ? (
        <AuditTrail session={session} alias={alias} />
      ) : (
        <section aria-label="Audit trail">
          <h2>Audit trail</h2>
          <p>Only admins read the audit trail.</p>
        </section>
      )}
    </>
  );
};
