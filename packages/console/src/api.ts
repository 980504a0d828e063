import { isLeft } from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { providerUnavailable, refusal } from "./schemes.js";
import { decodeInSlices, leadingObjects, nextFrame } from "./slices.js";

/** Where the REST API is served, on the console's own origin. */
export const API = "/rest/plugin/sdwan";

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

// Every answer is decoded before the page uses it: a service of another version shows as an error, never as a half-drawn page.
export const Verb = t.keyof({ read: null, use: null, manage: null });
export type Verb = t.TypeOf<typeof Verb>;
/** A grant to the signed-in principal or to one of its groups (`GET /me?grants=true`). */
const PatternGrant = t.type({ pattern: t.string, verb: Verb });
// A provider's user in no admin or viewer group has no role (null); its grants say what it may do beside the role.
export const Me = t.type({
  user: t.string,
  role: nullable(t.keyof({ admin: null, viewer: null })),
  grants: t.array(PatternGrant),
});
export type Me = t.TypeOf<typeof Me>;
/** Who is signed in, with the grants the console's controls follow. */
export const ME_PATH = "/me?grants=true";

/** A grant as `GET /grants` lists it. */
export const Grant = t.type({ id: t.string, subject: t.string, pattern: t.string, verb: Verb });
export type Grant = t.TypeOf<typeof Grant>;
/** Who may do what on a connection (`GET /connections/{alias}/access`). */
export const ConnectionAccess = t.type({
  alias: t.string,
  subjects: t.array(t.type({ subject: t.string, verbs: t.array(Verb) })),
});

/** A service token as `GET /tokens` lists it (SPEC §11): never its secret. A token made with grants only has no role. */
export const ServiceToken = t.type({
  id: t.string,
  name: t.string,
  role: nullable(t.keyof({ admin: null, viewer: null })),
  expiresAt: t.string,
  lastUsedAt: nullable(t.string),
  createdBy: t.string,
  createdAt: t.string,
});
export type ServiceToken = t.TypeOf<typeof ServiceToken>;
/** The answer of a creation or a renewal, the only ones with the secret (`sdw_…`). */
export const IssuedToken = t.intersection([ServiceToken, t.type({ token: t.string })]);

export const WEBHOOK_KINDS = ["cloudevents", "opennms"] as const;
/** A webhook as `GET /webhooks` lists it (SPEC §9): never its secret nor an OpenNMS password. */
export const Webhook = t.type({
  id: t.string,
  url: t.string,
  types: t.array(t.string),
  kind: t.keyof({ cloudevents: null, opennms: null }),
  createdAt: t.string,
  disabledAt: nullable(t.string),
});
export type Webhook = t.TypeOf<typeof Webhook>;
/** The answer of a creation, the only one with the signing secret (`whsec_…`). */
export const CreatedWebhook = t.intersection([Webhook, t.type({ secret: t.string })]);
/** One try at a delivery, or a ping: the receiver's status (null when none came: then the error), and how long it took. */
const Attempt = t.type({ at: t.string, status: nullable(t.number), error: nullable(t.string), latencyMs: t.number });
export type Attempt = t.TypeOf<typeof Attempt>;
export const PingAnswer = t.intersection([Attempt, t.type({ kind: Webhook.props.kind })]);
export const DELIVERY_STATUSES = ["pending", "delivered", "dead"] as const;
export const Delivery = t.type({
  id: t.string,
  webhookId: t.string,
  eventId: t.string,
  status: t.keyof({ pending: null, delivered: null, dead: null }),
  nextAttemptAt: t.string,
  attempts: t.array(Attempt),
});
export type Delivery = t.TypeOf<typeof Delivery>;

export const ConnectionSummary = t.type({ alias: t.string, orchestratorUrl: t.string });
export type ConnectionSummary = t.TypeOf<typeof ConnectionSummary>;

/**
 * When a connection's key expires, and where that comes from (docs/interface.md §10); null when unknown. `apiKeyRef`:
 * where the key is kept when not in the store (SPEC §12), absent for a stored key.
 */
const KeyExpiry = t.partial({
  apiKeyExpiresAt: nullable(t.string),
  apiKeyExpirySource: nullable(t.string),
  apiKeyRef: t.string,
});
/** Whether the service renews the key (SPEC §12); a service from before it answers without. */
export const KeyRenewal = t.keyof({ auto: null, off: null });

/** A connection as stored (`?stored=true`): what the edit page needs, without asking the orchestrator. */
export const ConnectionStored = t.intersection([
  t.type({
    alias: t.string,
    orchestratorUrl: t.string,
    version: t.number,
    apiKeySetAt: nullable(t.string),
    apiKeyFingerprint: t.string,
  }),
  KeyExpiry,
  t.partial({ keyRenewal: KeyRenewal }),
]);
export type ConnectionStored = t.TypeOf<typeof ConnectionStored>;

/** A connection's verbose validation: the orchestrator asked now. */
export const ConnectionDetail = t.intersection([
  t.type({ alias: t.string, orchestratorUrl: t.string, valid: t.boolean }),
  t.partial({
    type: t.keyof({ partner: null, customer: null }),
    reason: t.string,
    version: t.number,
    apiKeySetAt: nullable(t.string),
    apiKeyFingerprint: t.string,
  }),
]);
export type ConnectionDetail = t.TypeOf<typeof ConnectionDetail>;

const HealthState = t.keyof({ valid: null, invalid: null, unreachable: null, unknown: null });
export type HealthState = t.TypeOf<typeof HealthState>;
const ConnectionHealth = t.type({
  alias: t.string,
  state: HealthState,
  since: nullable(t.string),
  checks: t.array(t.type({ at: t.string, outcome: t.string, latencyMs: t.number, reason: nullable(t.string) })),
});
export type ConnectionHealth = t.TypeOf<typeof ConnectionHealth>;
export const Health = t.type({ intervalSeconds: nullable(t.number), connections: t.array(ConnectionHealth) });
export type Health = t.TypeOf<typeof Health>;

/** The health of `alias` (aliases match whatever their case), if the service knows it. */
export const healthOf = (health: Health, alias: string): ConnectionHealth | undefined =>
  health.connections.find((connection) => connection.alias.toLowerCase() === alias.toLowerCase());

export const AuditPage = t.type({
  entries: t.array(
    t.type({
      id: t.string,
      at: t.string,
      actor: t.string,
      action: t.string,
      fields: t.array(t.string),
      forced: t.boolean,
      validation: t.string,
      outcome: t.string,
      failure: nullable(t.string),
      detail: nullable(t.string),
    }),
  ),
  next: nullable(t.string),
});
export type AuditEntry = t.TypeOf<typeof AuditPage>["entries"][number];

/** What the console reads of an event (a CloudEvent of `GET /events`, docs/interface.md §9): never a key. */
export const LiveEvent = t.type({
  id: t.string,
  type: t.string,
  subject: t.string,
  time: t.string,
  data: t.partial({
    actor: t.string,
    forced: t.boolean,
    from: t.string,
    to: t.string,
    reason: nullable(t.string),
    expiresAt: t.string,
    daysLeft: t.number,
  }),
});
export type LiveEvent = t.TypeOf<typeof LiveEvent>;

// The customer's 20 fields are core's own codec (an entry of core that needs nothing but io-ts).
export { Customer } from "@sdwan-connections/core/customer";

const FieldError = t.type({ field: t.string, message: t.string });
export type FieldError = t.TypeOf<typeof FieldError>;
const ProblemBody = t.intersection([
  t.type({ title: t.string, status: t.number, detail: t.string }),
  // `type`: the problem's tag (a URN), what a client branches on, never the words.
  t.partial({ errors: t.array(FieldError), type: t.string }),
]);
export type Problem = t.TypeOf<typeof ProblemBody>;

/** A failed call, as the service's problem+json body says it (or as close as its answer allows). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

const unexpected = (what: string): ApiError =>
  new ApiError({
    title: "Unexpected answer",
    status: 0,
    detail: `The service's answer to ${what} does not have the expected form.`,
  });

const decode = <A>(codec: t.Decoder<unknown, A>, value: unknown, what: string): A => {
  const decoded = codec.decode(value);
  if (isLeft(decoded)) throw unexpected(what);
  return decoded.right;
};

const problemFromResponse = async (response: Response): Promise<Problem> => {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").startsWith("application/problem+json")) {
    const decoded = ProblemBody.decode(JSON.parse(text));
    if (!isLeft(decoded)) return decoded.right;
  }
  return {
    title: response.statusText || "Request failed",
    status: response.status,
    detail: text || `The service answered ${response.status}.`,
  };
};

/** `Basic` credentials, as the Authorization header carries them (UTF-8, then base64). */
export const basicAuthorization = (user: string, password: string): string => {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
};

export interface CallOptions {
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/**
 * One call of the REST API with the session's credentials; a non-2xx answer
 * rejects with its problem. `X-Requested-With` asks the service to leave out
 * the `WWW-Authenticate` challenge on 401, so the browser never opens its
 * own login dialog over the console's.
 */
export const call = async (
  authorization: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Response> => {
  const response = await fetch(`${API}${path}`, {
    method,
    cache: "no-store",
    headers: {
      authorization,
      "x-requested-with": "XMLHttpRequest",
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (response.ok) return response;
  const problem = await problemFromResponse(response);
  if (response.status !== 401) throw new ApiError(providerUnavailable(problem) ?? problem);
  // Refused credentials, in words naming the scheme the user signed in with.
  const refused = refusal(authorization, problem, response.headers.get("www-authenticate"));
  // A token refused (a session ended, a provider's token expired, a service token revoked): the console signs out.
  if (authorization.startsWith("Bearer ")) dispatchEvent(new CustomEvent(SESSION_ENDED, { detail: refused }));
  throw new ApiError(refused);
};

/** The window event (its `detail` the refusal, a Problem) `call` sends when the service no longer accepts the tab's token. */
export const SESSION_ENDED = "sdwan:session-ended";

/** A call whose JSON answer is decoded with `codec`. */
export const callJson = async <A>(
  authorization: string,
  method: string,
  path: string,
  codec: t.Decoder<unknown, A>,
  options: CallOptions = {},
): Promise<A> => {
  const response = await call(authorization, method, path, options);
  return decode(codec, await response.json(), `${method} ${path}`);
};

export const getJson = <A>(authorization: string, path: string, codec: t.Decoder<unknown, A>): Promise<A> =>
  callJson(authorization, "GET", path, codec);

/** How many items of a long list are shown before the rest has arrived: a screenful and more. */
const FIRST_ITEMS = 100;

/**
 * A GET whose answer is a JSON array of objects, shown before it is all in: `onFirst` gets its first items as soon
 * as they have arrived (read from the body as it streams), then the whole answer is parsed and decoded a slice at a
 * time (`decodeInSlices`), yielding to the browser between slices.
 */
export const getJsonInSlices = async <A>(
  authorization: string,
  path: string,
  codec: t.Decoder<unknown, A>,
  onFirst: (items: readonly A[]) => void,
  current: () => boolean,
): Promise<readonly A[]> => {
  const response = await call(authorization, "GET", path);
  let text = "";
  let shown = false;
  const show = (items: readonly A[]): void => {
    if (!shown && current()) onFirst(items);
    shown = true;
  };
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
    text += read.value;
    const first = shown ? undefined : leadingObjects(text, FIRST_ITEMS);
    if (first?.length !== FIRST_ITEMS) continue;
    const decoded = first.flatMap((item) => {
      const one = codec.decode(item);
      return isLeft(one) ? [] : [one.right];
    });
    // A first item that does not decode: the whole answer's decoding below says so.
    if (decoded.length === first.length) {
      show(decoded);
      await nextFrame();
    }
  }
  const items = await decodeInSlices(reader === undefined ? await response.json() : JSON.parse(text), codec, show, {
    first: FIRST_ITEMS,
    current,
  });
  if (items === undefined && current()) throw unexpected(`GET ${path}`);
  return items ?? [];
};

export const aliasPath = (alias: string): string => `/connections/${encodeURIComponent(alias)}`;
