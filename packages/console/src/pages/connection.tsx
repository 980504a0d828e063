import { useEffect, useRef, useState } from "preact/hooks";
import { type CloudEvent, ConnectionDetails, type Problem, VerboseValidation } from "@sdwan-connections/core/wire";
import { aliasPath, call, getJson } from "../api.js";
import { DeleteDialog } from "../components/delete-dialog.js";
import { KeyExpiryBadge } from "../components/key-expiry-badge.js";
import { KeyRenewalPanel } from "../components/key-renewal.js";
import { Time } from "../components/time.js";
import { ProblemMessage } from "../components/problem.js";
import { may } from "../rights.js";
import { href, navigate } from "../router.js";
import { isAdmin, useSession } from "../session.js";
import { useEvents } from "../use-events.js";
import { problemOf, useLoad } from "../use-load.js";
import { AccessPanel, AuditTrail, HealthHistory, RECENT_EVENTS, RecentEvents, Section } from "./connection-sections.js";

/**
 * One connection: first as stored (URL, version, key date and fingerprint:
 * no orchestrator call, so at once), then its validation now (verbose), its
 * health and its audit trail. Its events follow live: each is listed, and the sections it changes are read
 * again (the stored form on a change or a key warning, the health on a health change, the audit trail on any).
 */
export const ConnectionPage = ({ alias }: { readonly alias: string }) => {
  const session = useSession();
  const [stored, , refreshStored] = useLoad(
    () => getJson(session.authorization, `${aliasPath(alias)}?stored=true`, ConnectionDetails),
    [session, alias],
  );
  const [recent, setRecent] = useState<readonly CloudEvent[]>([]);
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
        ? getJson(session.authorization, `${aliasPath(alias)}?verbose=true`, VerboseValidation)
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

  // An unknown alias, or one that names none (`#/connections/a%20b`: 400): one answer for the page, not one per section asking.
  const unknown = [stored, validation].find(
    (loaded) => loaded.state === "failed" && (loaded.problem.status === 404 || loaded.problem.status === 400),
  );
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
            {/* The stored form's fields, a term and its value each: a new field of the connection is shown here. */}
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
              <dt>Key renewal</dt>
              <dd data-testid="key-renewal">{connection.keyRenewal === "auto" ? "on (auto)" : "off"}</dd>
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
      <KeyRenewalPanel
        session={session}
        alias={alias}
        stored={stored}
        changes={changes.any}
        onSwitched={refreshStored}
        onProblem={setProblem}
      />
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
