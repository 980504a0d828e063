import { readFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import * as E from "fp-ts/lib/Either.js";
import {
  decodeDataset,
  generateDataset,
  type ApiTokenRecord,
  type Dataset,
  type EnterpriseRecord,
  type GenerateOptions,
  type PartnerRecord,
} from "./dataset.js";

/** The portal methods served, as `{group}/{method}` after `/portal/rest/`. */
export const PORTAL_METHODS = [
  "enterpriseProxy/getEnterpriseProxyProperty",
  "enterprise/getEnterprise",
  "enterpriseProxy/getEnterpriseProxyEnterprises",
  "enterpriseProxy/getApiTokens",
  "enterprise/getApiTokens",
] as const;
export type PortalMethod = (typeof PORTAL_METHODS)[number];

/**
 * A fault to inject instead of (or, for `delay`, before) the normal answer.
 * `times` limits it to the next N matching calls; `method` to one method.
 */
export type Fault = (
  | { readonly kind: "delay"; readonly ms: number }
  | { readonly kind: "serverError"; readonly status?: number }
  | { readonly kind: "rateLimit"; readonly retryAfter?: string }
  /** The vendor's documented penalty: 429 without Retry-After to every matching call for `penaltyMs` (5 s) from the first, then normal answers. */
  | { readonly kind: "ratePenalty"; readonly penaltyMs?: number }
  | { readonly kind: "malformedJson" }
  /** The `error` body at `status` (default 200). */
  | { readonly kind: "errorBody"; readonly status?: number }
  /** `status` with an empty body. */
  | { readonly kind: "bareStatus"; readonly status: number }
  /** 200 with the usual JSON, less the id the method is asked for. */
  | { readonly kind: "missingId" }
  /** An HTML page at `status` (default 200); 502 is what a proxy in front of a down orchestrator sends. */
  | { readonly kind: "html"; readonly status?: number }
  /** 302 to a login page, as a portal behind single sign-on sends. */
  | { readonly kind: "redirectToLogin" }
  | { readonly kind: "reset" }
) & { readonly times?: number; readonly method?: PortalMethod };

/** One request as the simulator received it, for tests that check what a client sends. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface CallCounts {
  total: number;
  readonly byMethod: Record<PortalMethod, number>;
  /** Per key (the token as sent; "(none)" without one), per method. */
  readonly byKey: Map<string, Record<PortalMethod, number>>;
  /** How long the simulator took to serve the last successful call of each method (ms, inside the server). */
  readonly lastServeMs: Partial<Record<PortalMethod, number>>;
}

export interface SimulatorOptions {
  /** The data to serve; defaults to the shipped sample (`fixtures/sample.json`). */
  readonly data?: Dataset;
  /** Generate this much data instead (load tests); wins over `data`. */
  readonly generate?: GenerateOptions;
  /** A path prefix to serve under, e.g. "/vco" makes `/vco/portal/rest/...`. */
  readonly prefix?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Keep every request (headers and body) in `requests`; on by default, off for load tests. */
  readonly record?: boolean;
  /** Serve HTTPS with this key and certificate (PEM), e.g. from `createTestCertificates()`. */
  readonly tls?: { readonly key: string; readonly cert: string };
}

export interface OrchestratorSimulator {
  /** Base URL to give clients as `orchestratorUrl`, prefix included, with a trailing slash. */
  readonly url: string;
  readonly data: Dataset;
  readonly calls: CallCounts;
  readonly requests: readonly RecordedRequest[];
  /** Counts for one key, zeros if it never called. */
  callsFor(key: string): Record<PortalMethod, number>;
  /** Sets (or with `undefined` clears) the fault for `key`, or for every key with "*". A key's own fault wins. */
  setFault(key: string, fault: Fault | undefined): void;
  resetCalls(): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const SAMPLE_URL = new URL("../../fixtures/sample.json", import.meta.url);
const SAMPLE_URL_FROM_SRC = new URL("../fixtures/sample.json", import.meta.url);

/** Reads and decodes a data file; the error names the bad paths. */
export const loadDataset = async (file: string | URL): Promise<Dataset> => {
  const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
  const decoded = decodeDataset(parsed);
  if (E.isLeft(decoded)) throw new Error(`Invalid simulator data file: ${decoded.left}`);
  return decoded.right;
};

/** The sample shipped with this package (works from src/ and from dist/src/). */
export const loadSampleDataset = async (): Promise<Dataset> =>
  loadDataset(SAMPLE_URL_FROM_SRC).catch(() => loadDataset(SAMPLE_URL));

const zeroCounts = (): Record<PortalMethod, number> => ({
  "enterpriseProxy/getEnterpriseProxyProperty": 0,
  "enterprise/getEnterprise": 0,
  "enterpriseProxy/getEnterpriseProxyEnterprises": 0,
  "enterpriseProxy/getApiTokens": 0,
  "enterprise/getApiTokens": 0,
});

// JSON-RPC error codes, as the portal uses them in its `error` bodies.
const PARSE_ERROR = -32700;
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const SERVER_ERROR = -32603;
const TOKEN_ERROR = -32000;

const normalizePrefix = (prefix: string | undefined): string => {
  const trimmed = (prefix ?? "").replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `/${trimmed}`;
};

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
};

const sendHtml = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { "content-type": "text/html", "content-length": Buffer.byteLength(html), ...headers });
  res.end(html);
};

const NGINX_502 =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

/** What each method answers under the `missingId` fault: its usual shape, less the id a client looks for. */
const MISSING_ID_ANSWERS: Record<PortalMethod, unknown> = {
  "enterpriseProxy/getEnterpriseProxyProperty": {
    id: 1001,
    created: "2021-03-04T10:11:12.000Z",
    name: "vco.enterpriseProxy.displayName",
    value: "x",
  },
  "enterprise/getEnterprise": { logicalId: "00000000-0000-4000-8000-000000000000", name: "x" },
  "enterpriseProxy/getEnterpriseProxyEnterprises": [{}],
  "enterpriseProxy/getApiTokens": [{ id: 1, name: "x" }],
  "enterprise/getApiTokens": [{ id: 1, name: "x" }],
};

const errorBody = (code: number, message: string) => ({ error: { code, message } });

const readBody = (req: IncomingMessage, limit = 1_048_576): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) reject(new Error("body too large"));
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

/** The token of `Authorization: Token <key>`, if the header has that form. */
const tokenOf = (header: string | undefined): string | undefined => {
  const match = /^Token (.+)$/.exec(header ?? "");
  return match?.[1];
};

const proxyProperty = (partner: PartnerRecord) => ({
  id: partner.enterpriseProxyId * 100 + 1,
  enterpriseProxyId: partner.enterpriseProxyId,
  created: "2021-03-04T10:11:12.000Z",
  name: "vco.enterpriseProxy.displayName",
  value: partner.name,
  isPassword: false,
  dataType: "STRING",
  description: "Display name of the partner",
  modified: "2024-01-02T03:04:05.000Z",
});

/** A token as the token lists answer it (Swagger definition `api_token`), of the partner or the enterprise that owns it. */
const apiToken = (
  token: ApiTokenRecord,
  index: number,
  owner: { readonly enterpriseProxyId: number } | { readonly enterpriseId: number },
) => ({
  id: index + 1,
  tokenUuid: token.tokenUuid,
  name: `token ${index + 1}`,
  description: "",
  created: "2026-06-11T00:00:00.000Z",
  modified: "2026-06-11T00:00:00.000Z",
  downloaded: "2026-06-11T00:05:00.000Z",
  expiration: token.expiration,
  isRevoked: false,
  state: "ENABLED",
  ...owner,
});

/**
 * Starts an HTTP server speaking the portal methods. Behaviour, as a
 * real orchestrator would show it for each kind of token:
 * - no `Authorization: Token` header, or an unknown token: 400 with an `error`
 *   body (code -32000, "tokenError"), as the Swagger documents only 200, 400 and 500;
 * - partner key: `getEnterpriseProxyProperty` answers the partner's property
 *   object; `getEnterpriseProxyEnterprises` its enterprises (an
 *   `enterpriseProxyId` other than its own is a 400 `error`; none means its
 *   own); `getEnterprise` is a 400 `error` (a partner must name an enterprise);
 * - customer key: `getEnterprise` answers its enterprise; the
 *   enterpriseProxy methods are a 400 `error` (not a partner's privilege);
 * - `enterpriseProxy/getApiTokens` (a partner key) and `enterprise/getApiTokens` (a customer key) answer an
 *   array of the tokens of the caller's partner or enterprise (the data's `apiTokens`); a key whose token has
 *   `readsTokens: false`, or the other kind of key, gets the privilege error (400, code -32603);
 * - a body that is not a JSON object is a 400 parse error; other paths 404, other verbs 405.
 */
export const startOrchestratorSimulator = async (options: SimulatorOptions = {}): Promise<OrchestratorSimulator> => {
  const data =
    options.generate !== undefined ? generateDataset(options.generate) : (options.data ?? (await loadSampleDataset()));
  const prefix = normalizePrefix(options.prefix);
  const record = options.record ?? true;

  const partnerByKey = new Map<string, PartnerRecord>();
  for (const partner of data.partners) for (const key of partner.keys) partnerByKey.set(key, partner);
  const enterpriseById = new Map<number, EnterpriseRecord>();
  for (const partner of data.partners)
    for (const enterprise of partner.enterprises) enterpriseById.set(enterprise.id, enterprise);
  const enterpriseByKey = new Map<string, EnterpriseRecord>();
  for (const { key, enterpriseId } of data.customerKeys) {
    const enterprise = enterpriseById.get(enterpriseId);
    if (enterprise !== undefined) enterpriseByKey.set(key, enterprise);
  }
  const tokenByKey = new Map((data.apiTokens ?? []).map((token) => [token.key, token]));
  const tokensOf = (keys: readonly string[]) => keys.flatMap((key) => tokenByKey.get(key) ?? []);
  const customerKeysOf = new Map<number, string[]>();
  for (const { key, enterpriseId } of data.customerKeys)
    customerKeysOf.set(enterpriseId, [...(customerKeysOf.get(enterpriseId) ?? []), key]);
  // A partner's answer is the same every time: serialize it once.
  const enterprisesJson = new Map<PartnerRecord, string>();

  const calls: CallCounts = { total: 0, byMethod: zeroCounts(), byKey: new Map(), lastServeMs: {} };
  const requests: RecordedRequest[] = [];
  const faults = new Map<string, Fault>();

  const takeFault = (key: string | undefined, method: PortalMethod): Fault | undefined => {
    for (const slot of [key ?? "(none)", "*"]) {
      const fault = faults.get(slot);
      if (fault === undefined || (fault.method !== undefined && fault.method !== method)) continue;
      if (fault.times !== undefined) {
        if (fault.times <= 1) faults.delete(slot);
        else faults.set(slot, { ...fault, times: fault.times - 1 });
      }
      return fault;
    }
    return undefined;
  };

  const answer = (
    res: ServerResponse,
    method: PortalMethod,
    key: string | undefined,
    params: Record<string, unknown>,
  ): void => {
    const partner = key === undefined ? undefined : partnerByKey.get(key);
    const enterprise = key === undefined ? undefined : enterpriseByKey.get(key);
    if (partner === undefined && enterprise === undefined) {
      sendJson(res, 400, errorBody(TOKEN_ERROR, "tokenError [expired or invalid token]"));
      return;
    }
    switch (method) {
      case "enterpriseProxy/getEnterpriseProxyProperty":
        if (partner === undefined) sendJson(res, 400, errorBody(SERVER_ERROR, "privileges check failed"));
        else sendJson(res, 200, proxyProperty(partner));
        return;
      case "enterprise/getEnterprise":
        if (enterprise === undefined) sendJson(res, 400, errorBody(INVALID_PARAMS, "enterpriseId is required"));
        else sendJson(res, 200, enterprise);
        return;
      case "enterpriseProxy/getEnterpriseProxyEnterprises": {
        const requested = params["enterpriseProxyId"];
        if (partner === undefined) {
          sendJson(res, 400, errorBody(SERVER_ERROR, "privileges check failed"));
        } else if (requested !== undefined && requested !== partner.enterpriseProxyId) {
          sendJson(res, 400, errorBody(INVALID_PARAMS, "enterpriseProxyId does not match the caller"));
        } else {
          let json = enterprisesJson.get(partner);
          if (json === undefined) {
            json = JSON.stringify(partner.enterprises);
            enterprisesJson.set(partner, json);
          }
          sendJson(res, 200, json);
        }
        return;
      }
      case "enterpriseProxy/getApiTokens":
      case "enterprise/getApiTokens": {
        const owner = method === "enterpriseProxy/getApiTokens" ? partner : enterprise;
        if (owner === undefined || key === undefined || tokenByKey.get(key)?.readsTokens === false) {
          sendJson(res, 400, errorBody(SERVER_ERROR, "privileges check failed"));
        } else if (partner !== undefined) {
          sendJson(
            res,
            200,
            tokensOf(partner.keys).map((token, index) =>
              apiToken(token, index, { enterpriseProxyId: partner.enterpriseProxyId }),
            ),
          );
        } else if (enterprise !== undefined) {
          sendJson(
            res,
            200,
            tokensOf(customerKeysOf.get(enterprise.id) ?? []).map((token, index) =>
              apiToken(token, index, { enterpriseId: enterprise.id }),
            ),
          );
        }
        return;
      }
    }
  };

  const penaltyEnds = new WeakMap<Fault, number>();

  const applyFault = async (
    res: ServerResponse,
    req: IncomingMessage,
    fault: Fault,
    method: PortalMethod,
  ): Promise<boolean> => {
    switch (fault.kind) {
      case "delay":
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        return false; // then answer normally
      case "serverError":
        sendJson(res, fault.status ?? 500, errorBody(SERVER_ERROR, "An error occurred while processing your request"));
        return true;
      case "rateLimit":
        sendJson(
          res,
          429,
          errorBody(SERVER_ERROR, "rate limit exceeded"),
          fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter },
        );
        return true;
      case "malformedJson":
        sendJson(
          res,
          200,
          method.endsWith("Enterprises") || method.endsWith("getApiTokens")
            ? '[{"id": 1, "logicalId": "'
            : '{"id": 1, "enterpriseProxyId": ',
        );
        return true;
      case "ratePenalty": {
        const now = Date.now();
        const ends = penaltyEnds.get(fault) ?? now + (fault.penaltyMs ?? 5_000);
        penaltyEnds.set(fault, ends);
        if (now >= ends) return false; // the penalty is over
        sendJson(res, 429, errorBody(SERVER_ERROR, "rate limit exceeded"));
        return true;
      }
      case "errorBody":
        sendJson(res, fault.status ?? 200, errorBody(SERVER_ERROR, "An error occurred while processing your request"));
        return true;
      case "bareStatus":
        res.writeHead(fault.status, { "content-length": 0 });
        res.end();
        return true;
      case "missingId":
        sendJson(res, 200, MISSING_ID_ANSWERS[method]);
        return true;
      case "html":
        sendHtml(
          res,
          fault.status ?? 200,
          fault.status === 502 ? NGINX_502 : "<html><body><h1>Orchestrator</h1></body></html>",
        );
        return true;
      case "redirectToLogin":
        sendHtml(res, 302, '<html><body><a href="login.html">Log in</a></body></html>', {
          location: `${prefix}/login.html`,
        });
        return true;
      case "reset":
        req.socket.destroy();
        return true;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const body = await readBody(req).catch(() => undefined);
    if (record)
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: { ...req.headers }, body: body ?? "" });
    const path = (req.url ?? "").split("?")[0] ?? "";
    const base = `${prefix}/portal/rest/`;
    const method = path.startsWith(base) ? (path.slice(base.length) as PortalMethod) : undefined;
    if (method === undefined || !PORTAL_METHODS.includes(method)) {
      sendJson(res, 404, errorBody(METHOD_NOT_FOUND, "Method not found"));
      return;
    }
    if (req.method !== "POST") {
      sendJson(res, 405, errorBody(METHOD_NOT_FOUND, "Only POST is supported"), { allow: "POST" });
      return;
    }
    const key = tokenOf(req.headers.authorization);
    calls.total += 1;
    calls.byMethod[method] += 1;
    const perKey = calls.byKey.get(key ?? "(none)") ?? zeroCounts();
    perKey[method] += 1;
    calls.byKey.set(key ?? "(none)", perKey);

    const fault = takeFault(key, method);
    if (fault !== undefined && (await applyFault(res, req, fault, method))) return;

    let params: unknown;
    try {
      params = JSON.parse(body ?? "");
    } catch {
      params = undefined;
    }
    if (typeof params !== "object" || params === null || Array.isArray(params)) {
      sendJson(res, 400, errorBody(PARSE_ERROR, "Parse error: the body must be a JSON object"));
      return;
    }
    answer(res, method, key, params as Record<string, unknown>);
    if (res.statusCode === 200) calls.lastServeMs[method] = performance.now() - started;
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, errorBody(SERVER_ERROR, "simulator failure"));
      else res.destroy();
    });
  };
  const server =
    options.tls === undefined
      ? createHttpServer(listener)
      : createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener);
  server.keepAliveTimeout = 5_000;
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  const stop = async (): Promise<void> => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };

  return {
    url: `${options.tls === undefined ? "http" : "https"}://${urlHost}:${port}${prefix}/`,
    data,
    calls,
    requests,
    callsFor: (key) => ({ ...(calls.byKey.get(key) ?? zeroCounts()) }),
    setFault: (key, fault) => {
      if (fault === undefined) faults.delete(key);
      else faults.set(key, fault);
    },
    resetCalls: () => {
      calls.total = 0;
      for (const method of PORTAL_METHODS) calls.byMethod[method] = 0;
      calls.byKey.clear();
      requests.length = 0;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
};
