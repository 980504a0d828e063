import { useState } from "preact/hooks";
import { ConnectionSummary, Health, type Problem } from "@sdwan-connections/core/wire";
import { aliasPath, call, getJson, healthOf } from "../api.js";
import { DeleteDialog } from "../components/delete-dialog.js";
import { LastKnownHealth } from "../components/health-badge.js";
import { StoredKeyExpiry } from "../components/key-expiry-badge.js";
import { ProblemMessage } from "../components/problem.js";
import { href } from "../router.js";
import { may, mayAdd } from "../rights.js";
import { useSession } from "../session.js";
import { filterConnections } from "../connections-filter.js";
import { focusHeadingFromRow } from "../focus.js";
import { useEvents } from "../use-events.js";
import { problemOf, useLoad } from "../use-load.js";
import * as t from "io-ts";

const Connections = t.array(ConnectionSummary);

/**
 * Every connection, with its last known health state (and when it was checked), kept current by the health
 * events; adding, editing and deleting where the role or the grants allow (`manage`).
 */
export const ConnectionsPage = () => {
  const session = useSession();
  const [loaded, reload, refresh] = useLoad(
    () =>
      Promise.all([
        getJson(session.authorization, "/connections", Connections),
        getJson(session.authorization, "/health/connections", Health),
      ]),
    [session],
  );
  // A health state changed somewhere: the list and its health are read again, the rows shown meanwhile.
  useEvents("types=connection.health.changed", refresh, refresh);
  const [deleting, setDeleting] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [search, setSearch] = useState("");

  const remove = (alias: string): void => {
    setDeleting(undefined);
    call(session.authorization, "DELETE", aliasPath(alias)).then(
      () => {
        setProblem(undefined);
        reload();
        focusHeadingFromRow();
      },
      (error: unknown) => setProblem(problemOf(error)),
    );
  };

  const shown = loaded.state === "ready" ? filterConnections(loaded.value[0], search) : [];
  return (
    <>
      <div class="toolbar">
        <h1 tabIndex={-1}>Connections</h1>
        <button type="button" onClick={reload}>
          Refresh
        </button>
        {mayAdd(session) ? (
          <a class="button primary" href={href({ page: "add" })}>
            Add connection
          </a>
        ) : null}
      </div>
      {problem === undefined ? null : <ProblemMessage problem={problem} />}
      {loaded.state === "loading" ? <p aria-live="polite">Loading…</p> : null}
      {loaded.state === "failed" ? <ProblemMessage problem={loaded.problem} /> : null}
      {loaded.state === "ready" ? (
        <>
          <p class="note">
            {loaded.value[1].intervalSeconds === null
              ? "Background health checks are off (SDWAN_HEALTH_INTERVAL_S): a state is the outcome of the connection's last validation, unknown until one."
              : `Health is checked every ${loaded.value[1].intervalSeconds} s.`}
          </p>
          {loaded.value[0].length === 0 ? (
            <p>No connections yet.</p>
          ) : (
            <>
              <div class="toolbar">
                <label for="connection-search">Search connections</label>
                <input
                  id="connection-search"
                  type="search"
                  value={search}
                  onInput={(event) => setSearch(event.currentTarget.value)}
                  placeholder="alias or URL"
                />
                <span role="status">
                  {shown.length === loaded.value[0].length
                    ? `${shown.length} connections`
                    : shown.length === 0
                      ? `No connection matches “${search.trim()}” (of ${loaded.value[0].length})`
                      : `${shown.length} of ${loaded.value[0].length} connections`}
                </span>
              </div>
              <table class="connections stacks">
                <caption class="visually-hidden">Connections and their health</caption>
                <thead>
                  <tr>
                    <th scope="col">Alias</th>
                    <th scope="col">Orchestrator URL</th>
                    <th scope="col">Health</th>
                    <th scope="col">Key expiry</th>
                    {mayAdd(session) ? <th scope="col">Actions</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {shown.map(({ alias, orchestratorUrl }) => (
                    <tr key={alias}>
                      <td class="title">
                        <a href={href({ page: "connection", alias })}>{alias}</a>
                      </td>
                      <td data-label="Orchestrator URL">{orchestratorUrl}</td>
                      <td data-label="Health">
                        <LastKnownHealth health={healthOf(loaded.value[1], alias)} />
                      </td>
                      <td data-label="Key expiry">
                        <StoredKeyExpiry alias={alias} />
                      </td>
                      {mayAdd(session) ? (
                        <td class="actions">
                          {may(session, "manage", alias) ? (
                            <>
                              <a class="button" href={href({ page: "edit", alias })} aria-label={`Edit ${alias}`}>
                                Edit
                              </a>
                              <button
                                type="button"
                                class="danger"
                                onClick={() => setDeleting(alias)}
                                aria-label={`Delete ${alias}`}
                              >
                                Delete
                              </button>
                            </>
                          ) : null}
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </>
      ) : null}
      <DeleteDialog
        alias={deleting}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => deleting !== undefined && remove(deleting)}
      />
    </>
  );
};
