import { useEffect, useState } from "preact/hooks";
import { type AuditEntry, AuditPage, type ConnectionDetails, type Problem } from "@sdwan-connections/core/wire";
import { aliasPath, call, getJson } from "../api.js";
import { may } from "../rights.js";
import { isAdmin, type Session } from "../session.js";
import { problemOf, useLoad, type Loaded } from "../use-load.js";
import { Time } from "./time.js";

// A renewal's audit entries (SPEC §12: a renewal is a change by `renewal`; a failure is recorded with its reason):
// the newest of each is the state shown. The audit trail is the admins', so only they see the history here.
const RENEWED = "key-renew";
const FAILED = "key-renewal-failed";
const HISTORY = 100;

const newest = (entries: readonly AuditEntry[], action: string): AuditEntry | undefined =>
  entries.find((entry) => entry.action === action);

const RenewalHistory = ({ entries }: { readonly entries: readonly AuditEntry[] }) => {
  const renewed = newest(entries, RENEWED);
  const failed = newest(entries, FAILED);
  return (
    <dl class="facts">
      <dt>Last renewal</dt>
      <dd data-testid="key-renewed">{renewed === undefined ? "none recorded" : <Time at={renewed.at} />}</dd>
      <dt>Last failure</dt>
      <dd data-testid="key-renewal-failed">
        {failed === undefined ? (
          "none recorded"
        ) : (
          <>
            <Time at={failed.at} />: {failed.failure ?? failed.detail ?? "no reason given"}
          </>
        )}
      </dd>
    </dl>
  );
};

/**
 * A connection's key renewal (SPEC §12): on or off, the last renewal and failure (admins: from the audit trail),
 * and a switch for whoever may manage the connection (a PUT of `keyRenewal` at the version shown).
 */
export const KeyRenewalPanel = ({
  session,
  alias,
  stored,
  changes,
  onSwitched,
  onProblem,
}: {
  readonly session: Session;
  readonly alias: string;
  readonly stored: Loaded<ConnectionDetails>;
  /** Events the page received: a renewal or its failure is one. */
  readonly changes: number;
  readonly onSwitched: () => void;
  readonly onProblem: (problem: Problem) => void;
}) => {
  const [switching, setSwitching] = useState(false);
  const [history, , refresh] = useLoad(
    () =>
      isAdmin(session)
        ? getJson(session.authorization, `/audit?alias=${encodeURIComponent(alias)}&limit=${HISTORY}`, AuditPage)
        : Promise.resolve(undefined),
    [session, alias],
  );
  useEffect(() => {
    if (changes > 0) refresh();
  }, [changes]);
  if (stored.state !== "ready") return null;
  const { keyRenewal, version } = stored.value;
  const on = keyRenewal === "auto";
  const toggle = (): void => {
    setSwitching(true);
    call(session.authorization, "PUT", aliasPath(alias), {
      body: { keyRenewal: on ? "off" : "auto" },
      headers: { "if-match": `"${version}"` },
    }).then(
      () => {
        setSwitching(false);
        onSwitched();
      },
      (error: unknown) => {
        setSwitching(false);
        onProblem(problemOf(error));
      },
    );
  };
  return (
    <section aria-label="Key renewal">
      <h2>Key renewal</h2>
      <p data-testid="key-renewal-state">
        {on
          ? "On: the service renews this key through the orchestrator before it expires."
          : "Off: the key is renewed by hand, a new key stored before it expires."}
      </p>
      {history.state === "ready" && history.value !== undefined ? (
        <RenewalHistory entries={history.value.entries} />
      ) : isAdmin(session) ? null : (
        <p class="note">Renewals and their failures are in the audit trail (admins); new ones show in Recent events.</p>
      )}
      {may(session, "manage", alias) ? (
        <div class="actions">
          <button type="button" disabled={switching} onClick={toggle}>
            {on ? "Turn renewal off" : "Turn renewal on"}
          </button>
        </div>
      ) : null}
    </section>
  );
};
