/** A small client for the service's REST interface (docs/interface.md §1), with HTTP Basic credentials. */
export interface Reply {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface Credentials {
  readonly user: string;
  readonly password: string;
}

export const API = "/rest/plugin/sdwan";

export const call = async (
  origin: string,
  method: string,
  path: string,
  options: { readonly credentials?: Credentials | undefined; readonly body?: unknown } = {},
): Promise<Reply> => {
  const headers: Record<string, string> = {};
  if (options.credentials !== undefined) {
    headers["authorization"] =
      `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString("base64")}`;
  }
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, json };
};

/** A client bound to one service instance and one user. */
export const client = (origin: string, credentials: Credentials) => ({
  get: (path: string) => call(origin, "GET", `${API}${path}`, { credentials }),
  post: (path: string, body: unknown) => call(origin, "POST", `${API}${path}`, { credentials, body }),
  put: (path: string, body: unknown) => call(origin, "PUT", `${API}${path}`, { credentials, body }),
  delete: (path: string) => call(origin, "DELETE", `${API}${path}`, { credentials }),
});
