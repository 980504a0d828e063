import { readFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import * as E from "fp-ts/lib/Either.js";
import {
  decodeDataset,
  generateDataset,
  type Dataset,
  type EnterpriseRecord,
  type GenerateOptions,
  type PartnerRecord,
} from "./dataset.js";
import { createFaultApplier, errorBody, sendJson, type Fault } from "./faults.js";
import { createHolds, type Hold, type HoldMatch } from "./holds.js";
import {
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  PORTAL_METHODS,
  SERVER_ERROR,
  TOKEN_ERROR,
  zeroCounts,
  type PortalMethod,
} from "./methods.js";
import { createTokens, PRIVILEGE, type SimulatorToken, type TokenRefusal } from "./tokens.js";

export { PORTAL_METHODS, type PortalMethod } from "./methods.js";
export type { Fault } from "./faults.js";

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
  /** The clock tokens expire and are used by (ms since the epoch); `Date.now` by default. */
  readonly now?: () => number;
  /**
   * Whether `enterprise/refreshApiToken` revokes the token it refreshes. By default that token works on until its own
   * expiry (no public document says which real orchestrators do; see the README).
   */
  readonly refreshRevokesPredecessor?: boolean;
}

export interface OrchestratorSimulator {
  /** Base URL to give clients as `orchestratorUrl`, prefix included, with a trailing slash. */
  readonly url: string;
  readonly data: Dataset;
  readonly calls: CallCounts;
  readonly requests: readonly RecordedRequest[];
  /** Counts for one key, zeros if it never called. */
  callsFor(key: string): Record<PortalMethod, number>;
  /** Every API token, in the order made (a copy each time): state, expiry, user, key, first and last use. */
  tokens(): readonly SimulatorToken[];
  /** The token behind `key`, whatever its state, or undefined for a key the simulator never issued. */
  tokenOf(key: string): SimulatorToken | undefined;
  /** Holds the next calls that `match` names until `release()` (a test hook); every call is still counted. */
  hold(match: HoldMatch): Hold;
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

const normalizePrefix = (prefix: string | undefined): string => {
  const trimmed = (prefix ?? "").replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `/${trimmed}`;
};

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

  const partnerById = new Map<number, PartnerRecord>(
    data.partners.map((partner) => [partner.enterpriseProxyId, partner]),
  );
  const enterpriseById = new Map<number, EnterpriseRecord>();
  for (const partner of data.partners)
    for (const enterprise of partner.enterprises) enterpriseById.set(enterprise.id, enterprise);
  const tokens = createTokens(data, {
    now: options.now ?? Date.now,
    refreshRevokesPredecessor: options.refreshRevokesPredecessor ?? false,
  });
  const holds = createHolds();
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
    const token = tokens.use(key);
    const { owner } = token ?? {};
    const partner = owner?.kind === "partner" ? partnerById.get(owner.enterpriseProxyId) : undefined;
    const enterprise = owner?.kind === "enterprise" ? enterpriseById.get(owner.enterpriseId) : undefined;
    if (token === undefined || owner === undefined || (partner === undefined && enterprise === undefined)) {
      sendJson(res, 400, errorBody(TOKEN_ERROR, "tokenError [expired or invalid token]"));
      return;
    }
    const tokenAnswer = (result: object | TokenRefusal): void =>
      "code" in result && "message" in result
        ? sendJson(res, 400, errorBody(result.code, result.message))
        : sendJson(res, 200, result);
    switch (method) {
      case "enterpriseProxy/getEnterpriseProxyProperty":
        if (partner === undefined) sendJson(res, 400, errorBody(PRIVILEGE.code, PRIVILEGE.message));
        else sendJson(res, 200, proxyProperty(partner));
        return;
      case "enterprise/getEnterprise":
        if (enterprise === undefined) sendJson(res, 400, errorBody(INVALID_PARAMS, "enterpriseId is required"));
        else sendJson(res, 200, enterprise);
        return;
      case "enterpriseProxy/getEnterpriseProxyEnterprises": {
        const requested = params["enterpriseProxyId"];
        if (partner === undefined) {
          sendJson(res, 400, errorBody(PRIVILEGE.code, PRIVILEGE.message));
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
        const own = method === "enterpriseProxy/getApiTokens" ? partner : enterprise;
        tokenAnswer(own === undefined || !token.readsTokens ? PRIVILEGE : tokens.listOf(owner));
        return;
      }
      case "enterprise/refreshApiToken":
        tokenAnswer(tokens.refresh(token, params));
        return;
      case "enterpriseProxy/createApiToken":
        tokenAnswer(tokens.create(token, params));
        return;
      case "enterpriseProxy/downloadApiToken":
        tokenAnswer(tokens.download(token, params));
        return;
      case "enterpriseProxy/revokeApiToken":
        tokenAnswer(tokens.revoke(token, params));
        return;
    }
  };

  const applyFault = createFaultApplier(prefix);

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

    // A held call whose client went away meanwhile (killed) is dropped, not acted on: as a request never sent.
    if (!(await holds.pass(method, key, "before", req.socket))) return;
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
    if (!holds.active("after")) {
      answer(res, method, key, params as Record<string, unknown>);
    } else {
      // Acted on, its answer kept back while a hold stops it.
      const end = res.end.bind(res);
      let send = (): void => undefined;
      res.end = ((...args: Parameters<typeof end>) => {
        send = () => end(...args);
        return res;
      }) as typeof res.end;
      answer(res, method, key, params as Record<string, unknown>);
      res.end = end;
      await holds.pass(method, key, "after", req.socket);
      send();
    }
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
    holds.releaseAll();
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
    tokens: () => tokens.all(),
    tokenOf: (key) => tokens.of(key),
    hold: (match) => holds.hold(match),
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
