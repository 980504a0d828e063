import { Problem, type ConnectionHealth, type Health } from "@sdwan-connections/core/wire";
import { isLeft } from "fp-ts/lib/Either.js";
import type * as t from "io-ts";
import { providerUnavailable, refusal } from "./schemes.js";
import { decodeInSlices, leadingObjects, nextFrame } from "./slices.js";

/** Where the REST API is served, on the console's own origin. */
export const API = "/rest/plugin/sdwan";

// Every answer is decoded with the wire's codecs (`@sdwan-connections/core/wire`) before the page uses it: a service
// of another version shows as an error, never as a half-drawn page.

/** Who is signed in, with the grants the console's controls follow. */
export const ME_PATH = "/me?grants=true";

/** The health of `alias` (aliases match whatever their case), if the service knows it. */
export const healthOf = (health: Health, alias: string): ConnectionHealth | undefined =>
  health.connections.find((connection) => connection.alias.toLowerCase() === alias.toLowerCase());

/** A failed call, as the service's problem+json body says it (or as close as its answer allows). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

/** A problem in the console's own words (no answer of the service, or one it words better): its type says nothing more. */
export const consoleProblem = (title: string, detail: string, status = 0): Problem => ({
  type: "about:blank",
  title,
  status,
  detail,
});

const unexpected = (what: string): ApiError =>
  new ApiError(consoleProblem("Unexpected answer", `The service's answer to ${what} does not have the expected form.`));

const decode = <A>(codec: t.Decoder<unknown, A>, value: unknown, what: string): A => {
  const decoded = codec.decode(value);
  if (isLeft(decoded)) throw unexpected(what);
  return decoded.right;
};

const problemFromResponse = async (response: Response): Promise<Problem> => {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").startsWith("application/problem+json")) {
    const decoded = Problem.decode(JSON.parse(text));
    if (!isLeft(decoded)) return decoded.right;
  }
  return consoleProblem(
    response.statusText || "Request failed",
    text || `The service answered ${response.status}.`,
    response.status,
  );
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
