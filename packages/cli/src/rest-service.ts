import {
  Customer,
  aliasKey,
  alreadyExists,
  applyPlan,
  invalidInput,
  notAPartner,
  notFound,
  planConfiguration,
  storageFailure,
  validationRefused,
  versionMismatch,
  type Audit,
  type Connections,
  type Events,
  type GrantService,
  type Health,
  type DomainError,
  type Alias,
  type ConnectionHealth,
  type StoredConnection,
  type ValidationResult,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import {
  AuditPage,
  ConnectionDetails,
  ConnectionSummary,
  Grant,
  Health as HealthAnswer,
  KeyCheck,
  Problem,
  problemSlugOf,
  VerboseValidation,
} from "@sdwan-connections/core/wire";
import { detailsView, orchestratorErrorOf, type Answer } from "./rest-codecs.js";
import { restApi, type RestApi } from "./rest-admin.js";
import { followStream } from "./rest-events.js";
import { requestOf, type ServiceEndpoint } from "./service-endpoint.js";

/**
 * The use cases the CLI calls, answered by a running service over its REST API (SPEC §1-§3, §8) instead of a
 * store opened here: every answer decoded, every problem turned back into the domain error the local mode
 * would give, so both modes print the same lines and exit with the same codes. The service audits each
 * write as the user the context signs in as. Planning an apply is done here, from the service's answers
 * (one stored connection and, when the file gives a key, one key check per entry), with core's own planner.
 */
export interface RemoteService {
  readonly connections: Omit<Connections, "rotateMasterKey">;
  readonly audit: Pick<Audit, "list">;
  readonly events: Events;
  readonly health: Pick<Health, "list">;
  // The service decides with its grants: nothing here holds a decision open.
  readonly grants: Pick<GrantService, "list" | "add" | "remove">;
  dispose(): Promise<void>;
}

const BASE = "/rest/plugin/sdwan";
// A key stored at the service, as the planner sees it: never a key itself (the service never answers one).
const STORED_KEY = "\u0000stored";

// The errors that blame the context (its credentials, its rights, its server), told apart as data, never by their words.
const blamed = new WeakSet<DomainError>();
/** Whether an error is about the context rather than the command: the command's options would not fix it. */
export const blamesContext = (error: DomainError): boolean => blamed.has(error);

export const createRemoteService = (endpoint: ServiceEndpoint): RemoteService & { readonly rest: RestApi } => {
  const origin = endpoint.server.replace(/\/+$/, "");
  const blame = (message: string): DomainError => {
    const error = invalidInput([{ field: `context '${endpoint.context}'`, message }]);
    blamed.add(error);
    return error;
  };

  // One request; a service that cannot be reached or times out is a storage failure: the store is behind it.
  const send =
    (
      method: string,
      path: string,
      options: { readonly body?: unknown; readonly ifMatch?: number; readonly signal?: AbortSignal } = {},
    ): TE.TaskEither<DomainError, Answer> =>
    async () => {
      const url = new URL(`${origin}${BASE}${path}`);
      const request = await requestOf(url);
      return new Promise((resolve) => {
        const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
        const headers: Record<string, string> = {
          accept: "application/json, text/plain, application/problem+json",
          ...(endpoint.authorization === undefined ? {} : { authorization: endpoint.authorization }),
          ...(body === undefined ? {} : { "content-type": "application/json; charset=utf-8" }),
          ...(options.ifMatch === undefined ? {} : { "if-match": `"${options.ifMatch}"` }),
        };
        const call = request(url, {
          method,
          headers,
          timeout: endpoint.timeoutMs,
          ...(endpoint.ca === undefined ? {} : { ca: endpoint.ca }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        const unreachable = (why: string) =>
          resolve(E.left(storageFailure(`The service at ${origin} cannot be reached (${why}).`)));
        call.on("timeout", () =>
          call.destroy(Object.assign(new Error("timed out"), { code: `no answer within ${endpoint.timeoutMs} ms` })),
        );
        call.on("error", (error: NodeJS.ErrnoException) => unreachable(error.code ?? error.message));
        call.on("response", (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", (error: NodeJS.ErrnoException) => unreachable(error.code ?? error.message));
          response.on("end", () =>
            resolve(E.right({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") })),
          );
        });
        call.end(body);
      });
    };

  const json = <A>(codec: t.Decoder<unknown, A>, answer: Answer): E.Either<DomainError, A> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    return E.mapLeft(() =>
      storageFailure(
        `The service at ${origin} gave an answer that is not its API's (HTTP ${answer.status}); is it an sdwan-connections service?`,
      ),
    )(codec.decode(parsed));
  };

  // A problem answer as the domain error the local mode gives; `alias` is the connection the request was about.
  const problemError = async (answer: Answer, alias: string | undefined): Promise<DomainError> => {
    const body = json(Problem, answer);
    if (E.isLeft(body))
      return answer.status === 401 ? blame(`the service refused the credentials (HTTP 401)`) : body.left;
    const { type, detail, errors, cause, reason } = body.right;
    const slug = problemSlugOf(type);
    switch (slug) {
      case "invalid-input":
        return invalidInput(errors ?? [{ field: "input", message: detail }]);
      case "unauthorized":
        return blame(`the service refused the credentials (${detail})`);
      case "forbidden":
        return blame(`this user may not do that (${detail})`);
      case "too-many-failed-logins":
      case "too-many-key-checks":
        return blame(detail);
      case "no-such-endpoint":
      case "method-not-allowed":
        return blame(`${origin} does not answer as an sdwan-connections service of this version (${detail})`);
      case "not-found":
        return notFound(alias ?? "");
      case "already-exists":
        return alreadyExists(alias ?? "");
      case "not-a-partner":
        return notAPartner(alias ?? "");
      case "version-mismatch": {
        // The version the connection is at, as the local mode says it: read again.
        const now = await describe(alias ?? "")();
        return E.isRight(now) ? versionMismatch(now.right.alias, now.right.version) : now.left;
      }
      case "validation-refused":
        // Why: the orchestrator problem that refused it, and its reason.
        return validationRefused(
          alias ?? "",
          orchestratorErrorOf(cause, reason ?? detail) ?? { _tag: "OrchestratorFailed", reason: reason ?? detail },
        );
      default:
        return orchestratorErrorOf(slug, detail) ?? storageFailure(detail);
    }
  };

  // A request whose success is `ok` (the status); anything else is its problem as a domain error.
  const call =
    (
      method: string,
      path: string,
      alias: string | undefined,
      options: Parameters<typeof send>[2] & { readonly ok?: number } = {},
    ): TE.TaskEither<DomainError, Answer> =>
    async () => {
      const answer = await send(method, path, options)();
      if (E.isLeft(answer) || answer.right.status === (options.ok ?? 200)) return answer;
      return E.left(await problemError(answer.right, alias));
    };
  const read = <A>(codec: t.Decoder<unknown, A>, path: string, alias?: string): TE.TaskEither<DomainError, A> =>
    pipe(
      call("GET", path, alias),
      TE.flatMap((answer) => TE.fromEither(json(codec, answer))),
    );

  const at = (alias: string) => `/connections/${encodeURIComponent(alias)}`;
  const flags = (options: { readonly dryRun?: boolean; readonly force?: boolean }) =>
    [options.dryRun === true ? "dryrun=true" : "", options.force === true ? "force=true" : ""]
      .filter(Boolean)
      .join("&");
  const query = (options: { readonly dryRun?: boolean; readonly force?: boolean }) =>
    flags(options) === "" ? "" : `?${flags(options)}`;
  const describe = (alias: string) => TE.map(detailsView)(read(ConnectionDetails, `${at(alias)}?stored=true`, alias));
  // The outcome of an add or update that succeeded (their words are the same either way, SPEC §1).
  const outcomeOf = <O extends string>(dryRun: boolean | undefined, done: O): O | "dry-run" =>
    dryRun === true ? "dry-run" : done;
  const bodyAlias = (body: unknown): string | undefined =>
    typeof body === "object" && body !== null && typeof (body as { alias?: unknown }).alias === "string"
      ? (body as { alias: string }).alias
      : undefined;
  const connectionsHealth = () =>
    TE.map(({ connections }: HealthAnswer) => connections)(read(HealthAnswer, "/health/connections"));

  const remove = (alias: string, ifMatch?: number, signal?: AbortSignal) =>
    TE.map(() => undefined)(
      call("DELETE", at(alias), alias, {
        ok: 204,
        ...(ifMatch === undefined ? {} : { ifMatch }),
        ...(signal === undefined ? {} : { signal }),
      }),
    );
  const update = (
    alias: string,
    body: unknown,
    options: { readonly dryRun?: boolean; readonly force?: boolean; readonly expectedVersions?: readonly number[] },
  ) => {
    const put = call("PUT", `${at(alias)}${query(options)}`, alias, {
      body,
      ...(options.expectedVersions?.[0] === undefined ? {} : { ifMatch: options.expectedVersions[0] }),
    });
    if (options.dryRun === true) return TE.map(() => "dry-run" as const)(put);
    // The service answers both in the same words (SPEC §1); an update that changed nothing keeps the version.
    // The version before is read first; when it cannot be, the PUT's own error is the answer, as in the local mode.
    return pipe(
      TE.fromTask(describe(alias)),
      TE.flatMap((before) =>
        pipe(
          put,
          TE.flatMap(() => (E.isLeft(before) ? TE.right(undefined) : describe(alias))),
          TE.map((after) =>
            E.isRight(before) && after?.version === before.right.version
              ? ("unchanged" as const)
              : ("updated" as const),
          ),
        ),
      ),
    );
  };

  const keyCheck = (alias: string, body: unknown) =>
    pipe(
      call("POST", `${at(alias)}/key-check`, alias, { body }),
      TE.flatMap((answer) => TE.fromEither(json(KeyCheck, answer))),
    );

  // The grants (SPEC §11, admins): the service audits each change as this context's user.
  const listGrants = () => read(t.readonlyArray(Grant), "/grants");
  const grants: RemoteService["grants"] = {
    list: listGrants,
    add: (body) =>
      pipe(
        call("POST", "/grants", undefined, { body, ok: 201 }),
        TE.flatMap((answer) => TE.fromEither(json(Grant, answer))),
      ),
    remove: (id) =>
      TE.map(() => undefined)(call("DELETE", `/grants/${encodeURIComponent(id)}`, undefined, { ok: 204 })),
  };

  // What planning learnt of the stored connections: each version (the writes' If-Match) and whether the file's key is the stored one.
  const versions = new Map<string, number>();
  const sameKey = new Map<string, boolean>();

  return {
    connections: {
      list: () => read(t.readonlyArray(ConnectionSummary), "/connections"),
      add: (body, options = {}) =>
        TE.map(() => outcomeOf(options.dryRun, "added" as const))(
          call("POST", `/connections${query(options)}`, bodyAlias(body), { body }),
        ),
      update: (alias, body, options = {}) => update(alias, body, options),
      validate: (alias) =>
        pipe(
          read(VerboseValidation, `${at(alias)}?verbose=true`, alias),
          TE.map(({ valid, type, reason, ...answer }) => ({ valid, type, reason, details: detailsView(answer) })),
          TE.flatMap(({ valid, type, reason, details }): TE.TaskEither<DomainError, ValidationResult> =>
            valid
              ? TE.right({ ...details, valid, type: type ?? "customer" })
              : // Refused, or not reached: the health the validation just recorded says which (SPEC §8).
                TE.map((health: readonly ConnectionHealth[]): ValidationResult => {
                  const last = health.find((entry) => aliasKey(entry.alias) === aliasKey(details.alias))?.checks[0]
                    ?.outcome;
                  return {
                    ...details,
                    valid,
                    reason: reason ?? "",
                    failure: last === "invalid" ? "OrchestratorRejected" : "OrchestratorUnreachable",
                  };
                })(connectionsHealth()),
          ),
        ),
      describe,
      checkKey: keyCheck,
      delete: (alias, options = {}) => remove(alias, options.expectedVersions?.[0]),
      customers: (alias) =>
        pipe(
          call("GET", `/partner/${encodeURIComponent(alias)}/customers`, alias),
          TE.flatMap((answer) =>
            TE.fromEither(
              E.map((items: readonly Customer[]) => ({ count: items.length, items, json: Buffer.from(answer.text) }))(
                json(t.readonlyArray(Customer), answer),
              ),
            ),
          ),
        ),
      plan: (rawDesired, options) => {
        // The file's keys by alias (the planner decodes the entries; a malformed one is its error, never checked here).
        const keys = new Map(
          (Array.isArray(rawDesired) ? (rawDesired as Record<string, unknown>[]) : []).flatMap((entry) =>
            typeof entry?.["alias"] === "string" && typeof entry["apiKey"] === "string"
              ? [[aliasKey(entry["alias"]), entry["apiKey"]] as const]
              : [],
          ),
        );
        // A stored connection as the planner reads one: its version kept for If-Match, the file's key checked against it.
        const get = (alias: Alias): TE.TaskEither<DomainError, StoredConnection> =>
          pipe(
            describe(alias),
            TE.tap((details) => {
              versions.set(aliasKey(details.alias), details.version);
              const apiKey = keys.get(aliasKey(alias));
              return apiKey === undefined
                ? TE.right(undefined)
                : TE.map(({ matches }: { matches: boolean }) => void sameKey.set(aliasKey(alias), matches))(
                    keyCheck(alias, { apiKey }),
                  );
            }),
            // The planner compares a declared expiry (a token's own is the key's, compared with the key).
            TE.map(
              (details) =>
                ({
                  ...details,
                  apiKey: STORED_KEY,
                  apiKeyExpiresAt:
                    details.apiKeyExpiry?.source === "declared" ? details.apiKeyExpiry.expiresAt : undefined,
                }) as unknown as StoredConnection,
            ),
          );
        return planConfiguration({
          repository: { get, list: () => read(t.readonlyArray(ConnectionSummary), "/connections") },
          grants,
          fingerprints: {
            fingerprint: (alias, apiKey) =>
              (apiKey as unknown) === STORED_KEY || sameKey.get(aliasKey(alias)) === true ? "stored" : "given",
          },
        })(rawDesired, options);
      },
      apply: (plan, options = {}) =>
        applyPlan({
          add: (body, force) =>
            call("POST", `/connections${query({ force })}`, body["alias"], {
              body,
              ...(options.signal === undefined ? {} : { signal: options.signal }),
            }),
          update: (alias, change, force) =>
            call("PUT", `${at(alias)}${query({ force })}`, alias, {
              body: change,
              ...(versions.has(aliasKey(alias)) ? { ifMatch: versions.get(aliasKey(alias)) as number } : {}),
              ...(options.signal === undefined ? {} : { signal: options.signal }),
            }),
          remove: (alias) => remove(alias, versions.get(aliasKey(alias)), options.signal),
          addGrant: grants.add,
          removeGrant: grants.remove,
        })(plan, { ...options, concurrency: Math.min(options.concurrency ?? 1, 8) }),
    },
    health: { list: connectionsHealth },
    grants,
    audit: {
      list: (queryValues) =>
        read(
          AuditPage,
          `/audit?${new URLSearchParams(Object.entries(queryValues).map(([name, value]): [string, string] => [name, String(value)])).toString()}`,
        ),
    },
    events: { follow: followStream(endpoint, { origin, path: `${BASE}/events`, json, problemError }) },
    dispose: async () => undefined,
    rest: restApi({ origin, context: endpoint.context, send, json }),
  };
};
