import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import {
  AliasCodec,
  AliasPatternCodec,
  GrantVerbCodec,
  SubjectCodec,
  CloudEventCodec,
  Customer,
  OrchestratorUrlCodec,
  IsoTimeCodec,
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
  describeError,
  type ConnectionService,
  type DomainError,
  type OrchestratorError,
  type Alias,
  type AuditEntry,
  type ConnectionDetails,
  type ConnectionHealth,
  type StoredConnection,
  type ValidationResult,
  type FeedItem,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";

/**
 * The use cases the CLI calls, answered by a running service over its REST API (SPEC §1-§3, §8) instead of a
 * store opened here: every answer decoded, every problem turned back into the domain error the local mode
 * would give, so both modes print the same lines and exit with the same codes. The service audits each
 * write as the user the context signs in as. Planning an apply is done here, from the service's answers
 * (one stored connection and, when the file gives a key, one key check per entry), with core's own planner.
 */
export type RemoteService = Omit<
  ConnectionService,
  | "rotateMasterKey"
  | "recordForbiddenWrite"
  | "recordTokenChange"
  | "recordWebhookRedelivery"
  | "recordWebhookChange"
  | "healthMonitor"
  | "keyExpiryWatch"
  | "keyReferenceWatch"
>;

export interface ServiceEndpoint {
  /** The service's base URL (without /rest/plugin/sdwan). */
  readonly server: string;
  /** The context's name, for the lines that blame the context (wrong credentials, wrong server). */
  readonly context: string;
  /** The Authorization header: Basic from the user and password, or a Bearer token. */
  readonly authorization: string | undefined;
  /** PEM of the CAs to trust for an https: server, besides Node's own. */
  readonly ca?: string;
  /** How long one request may take. */
  readonly timeoutMs: number;
  /**
   * A signed-in context's Authorization made anew (its access token refreshed): asked before `events --follow` opens
   * its stream again, which may outlive the access token it started with.
   */
  readonly reauthorize?: () => Promise<string | undefined>;
  /** Told when `events --follow` lost its stream and opens it again, and when it is back (a line for people). */
  readonly onReconnect?: (line: string) => void;
}

const BASE = "/rest/plugin/sdwan";
// How long `events --follow` waits before opening an ended stream again: doubling from the first to the most, with jitter.
const RECONNECT_MS = { first: 250, max: 5_000 };
// Three of the service's heartbeats (one at least every 15 s) missed: the stream is taken for cut.
const STREAM_IDLE_MS = 45_000;
// An answer the same request would get again (4xx: credentials refused or no longer allowing it, a query or an
// endpoint not this service's) ends `events --follow`; 408, 429, 5xx and cuts are passing, opened again.
const endsFollow = (status: number): boolean => status >= 400 && status < 500 && status !== 408 && status !== 429;
// A key stored at the service, as the planner sees it: never a key itself (the service never answers one).
const STORED_KEY = "\u0000stored";

interface Answer {
  readonly status: number;
  readonly text: string;
}

// The io-ts codecs of every answer read.
const Summary = t.type({ alias: AliasCodec, orchestratorUrl: OrchestratorUrlCodec });
// The key's expiry (SPEC §10) is optional: a service from before it answers without.
const DetailsAnswer = t.intersection([
  t.type({
    alias: AliasCodec,
    orchestratorUrl: OrchestratorUrlCodec,
    version: t.number,
    apiKeySetAt: t.union([IsoTimeCodec, t.null]),
    apiKeyFingerprint: t.string,
  }),
  t.partial({
    apiKeyExpiresAt: t.union([IsoTimeCodec, t.null]),
    apiKeyExpirySource: t.union([t.keyof({ declared: null, token: null, orchestrator: null }), t.null]),
  }),
]);
// The details as core has them: the expiry as one value, when both of its fields are given.
const Details = new t.Type<ConnectionDetails, unknown, unknown>(
  "ConnectionDetails",
  (input): input is ConnectionDetails => typeof input === "object" && input !== null && "apiKeyExpiry" in input,
  (input, context) =>
    E.map(({ apiKeyExpiresAt, apiKeyExpirySource, ...details }: t.TypeOf<typeof DetailsAnswer>): ConnectionDetails => ({
      ...details,
      apiKeyExpiry:
        apiKeyExpiresAt === undefined ||
        apiKeyExpiresAt === null ||
        apiKeyExpirySource === undefined ||
        apiKeyExpirySource === null
          ? undefined
          : { expiresAt: apiKeyExpiresAt, source: apiKeyExpirySource },
    }))(DetailsAnswer.validate(input, context)),
  (details) => details,
);
const Validation = t.intersection([
  Details,
  t.type({ valid: t.boolean }),
  t.partial({ type: t.keyof({ partner: null, customer: null }), reason: t.string }),
]);
const Check = t.type({
  at: IsoTimeCodec,
  outcome: t.keyof({ valid: null, invalid: null, unreachable: null }),
  latencyMs: t.number,
  reason: t.union([t.string, t.null]),
});
const Health = t.type({
  alias: AliasCodec,
  state: t.keyof({ unknown: null, valid: null, invalid: null, unreachable: null }),
  since: t.union([IsoTimeCodec, t.null]),
  checks: t.array(Check),
});
const HealthAnswer = t.type({ connections: t.array(Health) });
const AuditAnswer = t.type({
  entries: t.array(t.intersection([t.type({ at: IsoTimeCodec }), t.UnknownRecord])),
  next: t.union([t.string, t.null]),
});
const Matches = t.type({ matches: t.boolean });
const GrantAnswer = t.type({ id: t.string, subject: SubjectCodec, pattern: AliasPatternCodec, verb: GrantVerbCodec });
const FieldErrors = t.array(t.type({ field: t.string, message: t.string }));
const ProblemBody = t.intersection([
  t.type({ type: t.string, detail: t.string }),
  t.partial({ errors: FieldErrors, cause: t.string, reason: t.string }),
]);

// The problem types of orchestrator errors (SPEC §3), by the error each stands for.
const ORCHESTRATOR_PROBLEMS: Readonly<Record<string, OrchestratorError["_tag"]>> = {
  "orchestrator-rejected": "OrchestratorRejected",
  "orchestrator-failed": "OrchestratorFailed",
  "orchestrator-unreachable": "OrchestratorUnreachable",
  "orchestrator-timeout": "OrchestratorTimedOut",
  "orchestrator-garbage": "OrchestratorGarbage",
  "orchestrator-rate-limited": "OrchestratorRateLimited",
};
const orchestratorError = (_tag: OrchestratorError["_tag"], reason: string): OrchestratorError => ({ _tag, reason });

/** Why the service refused an add or update (422): the orchestrator problem that refused it, and its reason. */
const refusalCause = (detail: string, cause: string | undefined, reason: string | undefined): OrchestratorError =>
  orchestratorError(ORCHESTRATOR_PROBLEMS[cause ?? ""] ?? "OrchestratorFailed", reason ?? detail);

const slugOf = (type: string): string => type.replace(/^urn:sdwan-connections:problem:/, "");

/** Why an admin request (tokens, grants, webhooks) failed: the exit code and one line, never a secret. */
export interface RestFailure {
  readonly exit: "usage" | "notFound" | "conflict" | "storage";
  readonly message: string;
}

/** The service's admin API as the CLI's tokens, grants and webhooks commands call it: each answer decoded. */
export interface RestApi {
  request<A>(
    method: string,
    path: string,
    codec: t.Decoder<unknown, A>,
    options?: { readonly body?: unknown; readonly ok?: number },
  ): TE.TaskEither<RestFailure, A>;
}

// What each problem of the admin endpoints means to a script: its exit code (the rest are the service's failures).
const REST_EXITS: Readonly<Record<string, RestFailure["exit"]>> = {
  "invalid-input": "usage",
  unauthorized: "usage",
  forbidden: "usage",
  "no-such-endpoint": "usage",
  "method-not-allowed": "usage",
  "token-not-found": "notFound",
  "grant-not-found": "notFound",
  "webhook-not-found": "notFound",
  "delivery-not-found": "notFound",
  "delivery-event-expired": "notFound",
  "token-already-exists": "conflict",
  "grant-already-exists": "conflict",
  "delivery-pending": "conflict",
};

export const createRemoteService = (endpoint: ServiceEndpoint): RemoteService & { readonly rest: RestApi } => {
  const origin = endpoint.server.replace(/\/+$/, "");
  const blame = (message: string): DomainError => invalidInput([{ field: `context '${endpoint.context}'`, message }]);

  // One request; a service that cannot be reached or times out is a storage failure: the store is behind it.
  const send =
    (
      method: string,
      path: string,
      options: { readonly body?: unknown; readonly ifMatch?: number; readonly signal?: AbortSignal } = {},
    ): TE.TaskEither<DomainError, Answer> =>
    () =>
      new Promise((resolve) => {
        const url = new URL(`${origin}${BASE}${path}`);
        const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
        const headers: Record<string, string> = {
          accept: "application/json, text/plain, application/problem+json",
          ...(endpoint.authorization === undefined ? {} : { authorization: endpoint.authorization }),
          ...(body === undefined ? {} : { "content-type": "application/json; charset=utf-8" }),
          ...(options.ifMatch === undefined ? {} : { "if-match": `"${options.ifMatch}"` }),
        };
        const call = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
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
    const body = json(ProblemBody, answer);
    if (E.isLeft(body))
      return answer.status === 401 ? blame(`the service refused the credentials (HTTP 401)`) : body.left;
    const { type, detail, errors, cause, reason } = body.right;
    switch (slugOf(type)) {
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
        return validationRefused(alias ?? "", refusalCause(detail, cause, reason));
      default: {
        const tag = ORCHESTRATOR_PROBLEMS[slugOf(type)];
        return tag === undefined ? storageFailure(detail) : orchestratorError(tag, detail);
      }
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
  const describe = (alias: string) => read(Details, `${at(alias)}?stored=true`, alias);
  // The outcome of an add or update that succeeded (their words are the same either way, SPEC §1).
  const outcomeOf = <O extends string>(dryRun: boolean | undefined, done: O): O | "dry-run" =>
    dryRun === true ? "dry-run" : done;
  const bodyAlias = (body: unknown): string | undefined =>
    typeof body === "object" && body !== null && typeof (body as { alias?: unknown }).alias === "string"
      ? (body as { alias: string }).alias
      : undefined;
  const connectionsHealth = () =>
    TE.map(({ connections }: t.TypeOf<typeof HealthAnswer>) => connections)(read(HealthAnswer, "/health/connections"));

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
      TE.flatMap((answer) => TE.fromEither(json(Matches, answer))),
    );

  // The grants (SPEC §11, admins): the service audits each change as this context's user.
  const listGrants = () => read(t.array(GrantAnswer), "/grants");
  const grants: RemoteService["grants"] = {
    list: listGrants,
    add: (body) =>
      pipe(
        call("POST", "/grants", undefined, { body, ok: 201 }),
        TE.flatMap((answer) => TE.fromEither(json(GrantAnswer, answer))),
      ),
    remove: (id) =>
      TE.map(() => undefined)(call("DELETE", `/grants/${encodeURIComponent(id)}`, undefined, { ok: 204 })),
    // The service decides with its grants: nothing here holds a decision open.
    onChange: () => () => undefined,
    dispose: () => undefined,
  };

  // What planning learnt of the stored connections: each version (the writes' If-Match) and whether the file's key is the stored one.
  const versions = new Map<string, number>();
  const sameKey = new Map<string, boolean>();

  return {
    listConnections: () => read(t.array(Summary), "/connections"),
    addConnection: (body, options = {}) =>
      TE.map(() => outcomeOf(options.dryRun, "added" as const))(
        call("POST", `/connections${query(options)}`, bodyAlias(body), { body }),
      ),
    updateConnection: (alias, body, options = {}) => update(alias, body, options),
    validateConnection: (alias) =>
      pipe(
        read(Validation, `${at(alias)}?verbose=true`, alias),
        TE.flatMap(({ valid, type, reason, ...details }): TE.TaskEither<DomainError, ValidationResult> =>
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
    describeConnection: describe,
    checkApiKey: keyCheck,
    deleteConnection: (alias, options = {}) => remove(alias, options.expectedVersions?.[0]),
    listPartnerCustomers: (alias) =>
      pipe(
        call("GET", `/partner/${encodeURIComponent(alias)}/customers`, alias),
        TE.flatMap((answer) =>
          TE.fromEither(
            E.map((items: readonly Customer[]) => ({ count: items.length, items, json: Buffer.from(answer.text) }))(
              json(t.array(Customer), answer),
            ),
          ),
        ),
      ),
    planConfiguration: (rawDesired, options) => {
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
        repository: { get, list: () => read(t.array(Summary), "/connections") },
        grants,
        fingerprints: {
          fingerprint: (alias, apiKey) =>
            (apiKey as unknown) === STORED_KEY || sameKey.get(aliasKey(alias)) === true ? "stored" : "given",
        },
      })(rawDesired, options);
    },
    applyPlan: (plan, options = {}) =>
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
    connectionsHealth,
    grants,
    listAudit: (queryValues) =>
      TE.map(({ entries, next }: t.TypeOf<typeof AuditAnswer>) => ({
        entries: entries as unknown as readonly AuditEntry[],
        next,
      }))(
        read(
          AuditAnswer,
          `/audit?${new URLSearchParams(Object.entries(queryValues).map(([name, value]): [string, string] => [name, String(value)])).toString()}`,
        ),
      ),
    followEvents: (queryValues, deliver, ended) => () =>
      new Promise((resolve) => {
        const url = new URL(
          `${origin}${BASE}/events?${new URLSearchParams(Object.entries(queryValues).map(([name, value]): [string, string] => [name, String(value)])).toString()}`,
        );
        const stop = new AbortController();
        // The last event seen: a stream that ends (a restart, a cut) is opened again from it, so none is lost or repeated.
        let lastEventId: string | undefined;
        let opened = false;
        let delayMs = RECONNECT_MS.first;
        let timer: NodeJS.Timeout | undefined;
        stop.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
        let reconnecting = false;
        let authorization = endpoint.authorization;
        const reconnect = () => {
          if (stop.signal.aborted) return;
          const waitMs = delayMs * (0.5 + Math.random() / 2);
          endpoint.onReconnect?.(
            `the stream from ${origin} ended; reconnecting in ${(waitMs / 1000).toFixed(1)} s${lastEventId === undefined ? "" : ` (from event ${lastEventId})`}`,
          );
          reconnecting = true;
          timer = setTimeout(async () => {
            authorization = (await endpoint.reauthorize?.()) ?? authorization;
            if (!stop.signal.aborted) connect();
          }, waitMs);
          delayMs = Math.min(delayMs * 2, RECONNECT_MS.max);
        };
        // The first answer settles the command (a service that cannot be reached or refuses: its error); after it, a
        // refusal that would be answered again ends the follow with the same error, and every other end is reconnected.
        const failed = (error: DomainError) => {
          if (!opened) return resolve(E.left(error));
          if (stop.signal.aborted) return;
          stop.abort();
          ended?.(error);
        };
        function connect(): void {
          let closed = false;
          const end = () => {
            if (closed) return;
            closed = true;
            reconnect();
          };
          const call = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
            headers: {
              accept: "text/event-stream",
              ...(authorization === undefined ? {} : { authorization }),
              // Wins over ?lastEventId= (SPEC §9): what came after the last event seen is replayed first.
              ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
            },
            signal: stop.signal,
            // A connection of its own, closed with the stream: a kept-alive one would hold a stopping service's drain.
            agent: false,
            // The service sends a comment at least every 15 s: a stream silent for longer was cut without a word.
            timeout: STREAM_IDLE_MS,
            ...(endpoint.ca === undefined ? {} : { ca: endpoint.ca }),
          });
          call.on("timeout", () => call.destroy());
          call.on("error", (error: NodeJS.ErrnoException) =>
            closed
              ? undefined
              : opened
                ? end()
                : failed(
                    storageFailure(`The service at ${origin} cannot be reached (${error.code ?? error.message}).`),
                  ),
          );
          call.on("response", (response) => {
            if (response.statusCode !== 200) {
              const chunks: Buffer[] = [];
              response.on("data", (chunk: Buffer) => chunks.push(chunk));
              response.on("end", () => {
                if (opened && !endsFollow(response.statusCode ?? 0)) return end();
                closed = true;
                void problemError(
                  { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") },
                  undefined,
                ).then(failed);
              });
              return;
            }
            response.on("error", end);
            response.on("close", end);
            if (!opened) resolve(E.right(() => stop.abort()));
            if (reconnecting) endpoint.onReconnect?.(`reconnected to ${origin}`);
            reconnecting = false;
            opened = true;
            delayMs = RECONNECT_MS.first;
            // Server-Sent Events: frames end with a blank line; `id:` is the event's, `event:` names it, `data:` holds the CloudEvent; comments (`:`) keep it alive.
            let pending = "";
            response.setEncoding("utf8");
            response.on("data", (chunk: string) => {
              pending += chunk;
              const frames = pending.split("\n\n");
              pending = frames.pop() ?? "";
              for (const frame of frames) {
                const lines = frame.split("\n");
                const field = (name: string) =>
                  lines
                    .find((line) => line.startsWith(`${name}:`))
                    ?.slice(name.length + 1)
                    .trim();
                const data = lines
                  .filter((line) => line.startsWith("data:"))
                  .map((line) => line.slice("data:".length).trimStart())
                  .join("\n");
                let taken: void | Promise<void> = undefined;
                if (field("event") === "reset") taken = deliver({ _tag: "reset" });
                else if (data !== "") {
                  // Read as every other answer is: parsed, then decoded with the one codec; anything else is skipped.
                  const decoded = json(CloudEventCodec, { status: response.statusCode ?? 0, text: data });
                  if (E.isRight(decoded)) taken = deliver({ _tag: "event", event: decoded.right } satisfies FeedItem);
                }
                // The reader's output is full: the socket is read again once it drained (the service then waits too).
                if (taken !== undefined) {
                  response.pause();
                  void taken.then(() => response.resume());
                }
                lastEventId = field("id") ?? lastEventId;
              }
            });
          });
          call.end();
        }
        connect();
      }),
    dispose: async () => undefined,
    rest: {
      request: <A>(
        method: string,
        path: string,
        codec: t.Decoder<unknown, A>,
        options: { readonly body?: unknown; readonly ok?: number } = {},
      ): TE.TaskEither<RestFailure, A> =>
        pipe(
          send(method, path, options.body === undefined ? {} : { body: options.body }),
          TE.mapLeft((error): RestFailure => ({ exit: "storage", message: describeError(error) })),
          TE.flatMap((answer) => {
            if (answer.status === (options.ok ?? 200)) {
              const decoded: E.Either<DomainError, A> =
                answer.status === 204
                  ? E.mapLeft(() => storageFailure(`The service at ${origin} answered 204 to a read.`))(
                      codec.decode(undefined),
                    )
                  : json(codec, answer);
              return TE.fromEither(
                E.mapLeft((error: DomainError): RestFailure => ({ exit: "storage", message: describeError(error) }))(
                  decoded,
                ),
              );
            }
            const problem = json(ProblemBody, answer);
            if (E.isLeft(problem))
              return TE.left<RestFailure>({
                exit: answer.status === 401 ? "usage" : "storage",
                message: `context '${endpoint.context}': the service answered HTTP ${answer.status}`,
              });
            const { type, detail, errors } = problem.right;
            const slug = slugOf(type);
            const words =
              errors === undefined ? detail : errors.map(({ field, message }) => `${field}: ${message}`).join("; ");
            return TE.left<RestFailure>({
              exit: REST_EXITS[slug] ?? "storage",
              message:
                slug === "unauthorized" || slug === "forbidden" ? `context '${endpoint.context}': ${words}` : words,
            });
          }),
        ),
    },
  };
};
