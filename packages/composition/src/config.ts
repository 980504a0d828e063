import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import { MasterKeyCodec, PreviousMasterKeysCodec, type MasterKey } from "@sdwan-connections/secrets";
import * as t from "io-ts";
import {
  DEFAULT_AUDIT_RETENTION,
  DEFAULT_KEY_EXPIRY_WARN_DAYS,
  DEFAULT_WEBHOOK_RETRY_S,
  type AuditRetention,
} from "@sdwan-connections/core";
import { envValue, integer, list, oneOf, optional, text, withDefault } from "./env-values.js";
import { decodeTracing, type TracingConfig } from "./otel-config.js";

// node:net loaded when first asked (most CLI commands never do: it weighs on their start).
const isIP = (input: string): number => process.getBuiltinModule("node:net").isIP(input);

export { GroupsFileCodec, type Groups } from "./groups-file.js";
export type { TracingConfig } from "./otel-config.js";

const DAY_MS = 24 * 3600 * 1000;

/** Everything the service reads from its environment (docs/interface.md §6), decoded and checked. */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** SDWAN_DATA_DIR, or `./data` (relative to the working directory) when it is not set. */
  readonly dataDir: string;
  /** Whether dataDir is the default (SDWAN_DATA_DIR not set): messages then say it depends on the working directory. */
  readonly dataDirFromDefault: boolean;
  readonly storage: "lowdb" | "postgres";
  readonly databaseUrl: string | undefined;
  /** The master key, or undefined to use (or generate) the one in the data directory. */
  readonly masterKey: MasterKey | undefined;
  /** Older master keys (SDWAN_MASTER_KEY_PREVIOUS, comma-separated base64) that still open stored keys. */
  readonly previousMasterKeys: readonly MasterKey[];
  readonly admin: { readonly user: string; readonly password: string } | undefined;
  readonly htpasswdFile: string | undefined;
  readonly viewers: readonly string[];
  /** SDWAN_GROUPS_FILE: `group: member, member` lines (`decodeGroupsFile`); undefined: groups only from the provider. */
  readonly groupsFile: string | undefined;
  readonly orchestratorTimeoutMs: number;
  readonly customersCacheTtlMs: number;
  /** The bound on one partner's customers (`SDWAN_CUSTOMERS_MAX_ENTERPRISES`, `SDWAN_CUSTOMERS_MAX_REPLY_BYTES`): beyond it the orchestrator answered garbage. */
  readonly customersBound: { readonly enterprises: number; readonly replyBytes: number };
  /** The interval of background health checks (ms); undefined: off. */
  readonly healthIntervalMs: number | undefined;
  /** Days before a key's expiry to warn at (`SDWAN_KEY_EXPIRY_WARN_DAYS`), besides at expiry. */
  readonly keyExpiryWarnDays: readonly number[];
  /** Key renewal (SPEC §12): renew `renewDays` before expiry (SDWAN_KEY_RENEW_DAYS); revoke a partner's old key `overlapMs` after the new one is stored (SDWAN_KEY_RENEW_OVERLAP_H; 0: at once). */
  readonly keyRenewal: { readonly renewDays: number; readonly overlapMs: number };
  /** How long audit entries are kept: the newest `maxEntries` changes and, apart, `maxAttempts` other entries; none older than `maxAgeMs`. */
  readonly auditRetention: AuditRetention;
  /** Lower-cased host names; undefined allows any host. */
  readonly orchestratorAllowedHosts: readonly string[] | undefined;
  /** A PEM file of extra CAs trusted for https orchestrators (read and checked at start). */
  readonly orchestratorCaFile: string | undefined;
  readonly logLevel: LogLevel;
  readonly loginMaxFailures: number;
  readonly loginWindowMs: number;
  /** SDWAN_TRUSTED_PROXIES: the networks whose X-Forwarded-For names the client (none: the peer is the client). */
  readonly trustedProxies: readonly Network[];
  /** Whether the REST service serves the operator console at /console/. */
  readonly console: boolean;
  /** SDWAN_APIKEY_DIR: the one directory `file:` key references (apiKeyRef, the CLI's files) read; undefined: refused. */
  readonly apiKeyDir: string | undefined;
  /** The variables `env:` key references read (SDWAN_APIKEY_… only), and how often referenced keys are read again (SDWAN_APIKEY_REREAD_S). */
  readonly keyReferences: { readonly env: Readonly<Record<string, string>>; readonly rereadMs: number };
  /** GET /events: at most `maxStreams` open at once per instance (SDWAN_EVENTS_MAX_STREAMS), a comment every `heartbeatMs` (SDWAN_EVENTS_HEARTBEAT_S). */
  readonly events: { readonly maxStreams: number; readonly heartbeatMs: number };
  /** Webhooks (SPEC §9): the waits before each retry (SDWAN_WEBHOOK_RETRY_S, s), and which `http:` receivers are allowed (SDWAN_WEBHOOK_ALLOW_HTTP). */
  readonly webhooks: { readonly retrySchedule: readonly number[]; readonly allowHttp: HttpReceivers };
  /** SPEC §11: bearer tokens from an OpenID provider (SDWAN_OIDC_*); undefined: Basic only, as before. */
  readonly oidc: OidcConfig | undefined;
  /** OpenTelemetry traces (the standard `OTEL_*` variables, `decodeTracing`); undefined: off, and nothing is wrapped. */
  readonly tracing: TracingConfig | undefined;
}

/** How bearer tokens from an OpenID provider are checked and mapped to users and roles. */
export interface OidcConfig {
  /** The provider's issuer identifier: `iss` must equal it; its discovery document is read below it. */
  readonly issuer: string;
  /** What `aud` must contain. */
  readonly audience: string;
  /** The claim naming the user (`sub` when a token lacks it). */
  readonly usernameClaim: string;
  /** The claim listing the user's groups; a dotted path reads a nested claim. */
  readonly groupsClaim: string;
  readonly adminGroups: readonly string[];
  readonly viewerGroups: readonly string[];
  /** The console's public client at the provider (GET /auth/config); undefined: the console signs in with Basic only. */
  readonly clientId: string | undefined;
  readonly scopes: readonly string[];
}

/** The `http:` webhook receivers allowed: on any host, or on the hosts listed (lower-cased; none by default). */
export type HttpReceivers = "any" | readonly string[];

/** An IPv4 or IPv6 network: `address/prefix` (a bare address is one host). */
export interface Network {
  readonly address: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const listenHost = (raw: string) =>
  isIP(raw) !== 0 || HOST_NAME.test(raw) ? E.right(raw) : E.left("must be an IP address or a host name");

/** Decoded once, here, with secrets' own codecs, so the start refuses exactly the keys the keyring would. */
const secretsCodec =
  <A>(codec: t.Decoder<unknown, A>) =>
  (raw: string): E.Either<string, A> =>
    E.mapLeft((errors: t.Errors) => errors[0]?.message ?? "is not a valid master key")(codec.decode(raw));

const databaseUrl = (raw: string) => {
  try {
    const url = new URL(raw);
    return url.protocol === "postgres:" || url.protocol === "postgresql:"
      ? E.right(raw)
      : E.left("must be a postgres:// or postgresql:// URL");
  } catch {
    return E.left("must be a postgres:// or postgresql:// URL");
  }
};

/** Lower-cased, IPv6 without brackets; a list of blanks means no allowlist (any host). */
const hostList = (raw: string): E.Either<string, readonly string[] | undefined> => {
  const hosts = raw
    .split(",")
    .map((host) =>
      host
        .trim()
        .toLowerCase()
        .replace(/^\[(.*)\]$/, "$1"),
    )
    .filter((host) => host !== "");
  const bad = hosts.find((host) => isIP(host) === 0 && !HOST_NAME.test(host));
  if (bad !== undefined) return E.left("must be a comma-separated list of host names or IP addresses");
  return E.right(hosts.length === 0 ? undefined : hosts);
};

/**
 * SDWAN_WEBHOOK_ALLOW_HTTP: `true` any host, `false` none, or the hosts (names or addresses) whose receivers may be
 * `http:`, e.g. a stock OpenNMS's REST on port 8990: plain HTTP to those only.
 */
const httpReceivers = (raw: string): E.Either<string, HttpReceivers> =>
  raw === "true"
    ? E.right("any")
    : raw === "false"
      ? E.right([])
      : pipe(
          hostList(raw),
          E.bimap(
            () => "must be true, false, or a comma-separated list of host names or IP addresses",
            (hosts) => hosts ?? [],
          ),
        );

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** An issuer is https, or http on a loopback address only (tests, a sidecar): tokens are trusted on its word. */
const issuerUrl = (raw: string): E.Either<string, string> => {
  try {
    const url = new URL(raw);
    const secure = url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.test(url.hostname));
    return secure && url.search === "" && url.hash === "" && url.username === "" && url.password === ""
      ? E.right(raw)
      : E.left("must be an https:// URL (http:// only on a loopback address) without query, fragment or credentials");
  } catch {
    return E.left("must be an https:// URL (http:// only on a loopback address)");
  }
};

const claimName = (raw: string) =>
  /^\S{1,256}$/.test(raw) ? E.right(raw) : E.left("must be a claim name (a dotted path reads a nested claim)");

const network = (raw: string): E.Either<string, Network> => {
  const [address = "", prefix, ...rest] = raw.split("/");
  const version = isIP(address);
  const bits = version === 4 ? 32 : 128;
  if (
    version === 0 ||
    rest.length > 0 ||
    (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits))
  ) {
    return E.left("must be a comma-separated list of IPv4 or IPv6 networks (address/prefix, or an address)");
  }
  return E.right({
    address,
    prefix: prefix === undefined ? bits : Number(prefix),
    family: version === 4 ? "ipv4" : "ipv6",
  });
};

const networkList = (raw: string): E.Either<string, readonly Network[]> =>
  E.traverseArray(network)(
    raw
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  );

// Background health's period in seconds: 0 turns it off, else 1 s (SPEC §12: renewal rounds in tests) to a day.
const healthInterval = (raw: string): E.Either<string, number> =>
  raw === "0" ? E.right(0) : E.mapLeft(() => "must be 0 (off) or an integer from 1 to 86400")(integer(1, 86_400)(raw));

// Days before a key's expiry, each a whole number from 1 to 366 (the orchestrator caps a key at 12 months), at least one.
const warnDays = (raw: string): E.Either<string, readonly number[]> => {
  const items = raw.split(",").map((item) => item.trim());
  return items.every((item) => /^\d{1,3}$/.test(item) && Number(item) >= 1 && Number(item) <= 366)
    ? E.right([...new Set(items.map(Number))].sort((a, b) => b - a))
    : E.left("must be comma-separated whole numbers of days from 1 to 366, e.g. 30,7,1");
};

// The waits before each webhook retry, in seconds: whole numbers from 1 to a week, at least one.
const retrySeconds = (raw: string): E.Either<string, readonly number[]> => {
  const items = raw.split(",").map((item) => item.trim());
  return items.every((item) => /^\d{1,6}$/.test(item) && Number(item) >= 1 && Number(item) <= 604_800)
    ? E.right(items.map(Number))
    : E.left("must be comma-separated whole numbers of seconds from 1 to 604800, e.g. 10,60,300");
};

/** The environment, one codec per variable, in the order of docs/interface.md §6. */
export const EnvCodecs = {
  SDWAN_HOST: envValue("SDWAN_HOST", listenHost, withDefault("127.0.0.1")),
  SDWAN_PORT: envValue("SDWAN_PORT", integer(0, 65535), withDefault(8990)),
  SDWAN_DATA_DIR: envValue("SDWAN_DATA_DIR", text, withDefault("./data")),
  SDWAN_STORAGE: envValue("SDWAN_STORAGE", oneOf(["lowdb", "postgres"] as const), withDefault("lowdb" as const)),
  SDWAN_DATABASE_URL: envValue<string | undefined>("SDWAN_DATABASE_URL", databaseUrl, optional),
  SDWAN_MASTER_KEY: envValue<MasterKey | undefined>("SDWAN_MASTER_KEY", secretsCodec(MasterKeyCodec), optional),
  SDWAN_MASTER_KEY_PREVIOUS: envValue<readonly MasterKey[]>(
    "SDWAN_MASTER_KEY_PREVIOUS",
    secretsCodec(PreviousMasterKeysCodec),
    withDefault([]),
  ),
  SDWAN_ADMIN_USER: envValue<string | undefined>(
    "SDWAN_ADMIN_USER",
    (raw) => (/^[^:\s]{1,64}$/.test(raw) ? E.right(raw) : E.left("must be 1-64 characters without ':' or spaces")),
    optional,
  ),
  SDWAN_ADMIN_PASSWORD: envValue<string | undefined>(
    "SDWAN_ADMIN_PASSWORD",
    (raw) => (raw.length >= 8 && raw.length <= 1024 ? E.right(raw) : E.left("must be 8 to 1024 characters")),
    optional,
  ),
  SDWAN_HTPASSWD_FILE: envValue<string | undefined>("SDWAN_HTPASSWD_FILE", text, optional),
  SDWAN_VIEWERS: envValue("SDWAN_VIEWERS", list, withDefault<readonly string[]>([])),
  SDWAN_GROUPS_FILE: envValue<string | undefined>("SDWAN_GROUPS_FILE", text, optional),
  SDWAN_ORCHESTRATOR_TIMEOUT_MS: envValue("SDWAN_ORCHESTRATOR_TIMEOUT_MS", integer(1, 600_000), withDefault(10_000)),
  SDWAN_CUSTOMERS_CACHE_TTL_MS: envValue("SDWAN_CUSTOMERS_CACHE_TTL_MS", integer(0, 86_400_000), withDefault(60_000)),
  SDWAN_CUSTOMERS_MAX_ENTERPRISES: envValue(
    "SDWAN_CUSTOMERS_MAX_ENTERPRISES",
    integer(1, 10_000_000),
    withDefault(100_000),
  ),
  SDWAN_CUSTOMERS_MAX_REPLY_BYTES: envValue(
    "SDWAN_CUSTOMERS_MAX_REPLY_BYTES",
    integer(1_024, 1_073_741_824),
    withDefault(33_554_432),
  ),
  SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: envValue<readonly string[] | undefined>(
    "SDWAN_ORCHESTRATOR_ALLOWED_HOSTS",
    hostList,
    optional,
  ),
  SDWAN_ORCHESTRATOR_CA_FILE: envValue<string | undefined>("SDWAN_ORCHESTRATOR_CA_FILE", text, optional),
  SDWAN_LOG_LEVEL: envValue("SDWAN_LOG_LEVEL", oneOf(LOG_LEVELS), withDefault<LogLevel>("info")),
  SDWAN_LOGIN_MAX_FAILURES: envValue("SDWAN_LOGIN_MAX_FAILURES", integer(1, 1_000_000), withDefault(10)),
  SDWAN_LOGIN_WINDOW_MS: envValue("SDWAN_LOGIN_WINDOW_MS", integer(1_000, 86_400_000), withDefault(60_000)),
  SDWAN_TRUSTED_PROXIES: envValue("SDWAN_TRUSTED_PROXIES", networkList, withDefault<readonly Network[]>([])),
  SDWAN_HEALTH_INTERVAL_S: envValue("SDWAN_HEALTH_INTERVAL_S", healthInterval, withDefault(300)),
  SDWAN_KEY_EXPIRY_WARN_DAYS: envValue(
    "SDWAN_KEY_EXPIRY_WARN_DAYS",
    warnDays,
    withDefault(DEFAULT_KEY_EXPIRY_WARN_DAYS),
  ),
  // At most 180 days: a renewed key lives up to 12 months, and a window longer than half of that renews it again at once.
  SDWAN_KEY_RENEW_DAYS: envValue("SDWAN_KEY_RENEW_DAYS", integer(1, 180), withDefault(30)),
  SDWAN_KEY_RENEW_OVERLAP_H: envValue("SDWAN_KEY_RENEW_OVERLAP_H", integer(0, 8_760), withDefault(24)),
  SDWAN_AUDIT_MAX_ENTRIES: envValue(
    "SDWAN_AUDIT_MAX_ENTRIES",
    integer(1, 10_000_000),
    withDefault(DEFAULT_AUDIT_RETENTION.maxEntries),
  ),
  SDWAN_AUDIT_MAX_ATTEMPTS: envValue(
    "SDWAN_AUDIT_MAX_ATTEMPTS",
    integer(1, 10_000_000),
    withDefault(DEFAULT_AUDIT_RETENTION.maxAttempts),
  ),
  SDWAN_AUDIT_MAX_AGE_DAYS: envValue(
    "SDWAN_AUDIT_MAX_AGE_DAYS",
    integer(1, 36_500),
    withDefault(DEFAULT_AUDIT_RETENTION.maxAgeMs / DAY_MS),
  ),
  SDWAN_CONSOLE: envValue("SDWAN_CONSOLE", oneOf(["on", "off"] as const), withDefault("on" as const)),
  SDWAN_APIKEY_DIR: envValue<string | undefined>("SDWAN_APIKEY_DIR", text, optional),
  SDWAN_APIKEY_REREAD_S: envValue("SDWAN_APIKEY_REREAD_S", integer(1, 60), withDefault(30)),
  SDWAN_OIDC_ISSUER: envValue<string | undefined>("SDWAN_OIDC_ISSUER", issuerUrl, optional),
  SDWAN_OIDC_AUDIENCE: envValue<string | undefined>("SDWAN_OIDC_AUDIENCE", text, optional),
  SDWAN_OIDC_USERNAME_CLAIM: envValue("SDWAN_OIDC_USERNAME_CLAIM", claimName, withDefault("preferred_username")),
  SDWAN_OIDC_GROUPS_CLAIM: envValue("SDWAN_OIDC_GROUPS_CLAIM", claimName, withDefault("groups")),
  SDWAN_OIDC_ADMIN_GROUPS: envValue("SDWAN_OIDC_ADMIN_GROUPS", list, withDefault<readonly string[]>([])),
  SDWAN_OIDC_VIEWER_GROUPS: envValue("SDWAN_OIDC_VIEWER_GROUPS", list, withDefault<readonly string[]>([])),
  SDWAN_OIDC_CLIENT_ID: envValue<string | undefined>("SDWAN_OIDC_CLIENT_ID", text, optional),
  SDWAN_OIDC_SCOPES: envValue(
    "SDWAN_OIDC_SCOPES",
    (raw) => E.right(raw.split(/\s+/).filter((scope) => scope !== "")),
    withDefault<readonly string[]>(["openid", "profile"]),
  ),
  SDWAN_EVENTS_MAX_STREAMS: envValue("SDWAN_EVENTS_MAX_STREAMS", integer(1, 100_000), withDefault(200)),
  SDWAN_EVENTS_HEARTBEAT_S: envValue("SDWAN_EVENTS_HEARTBEAT_S", integer(1, 15), withDefault(15)),
  SDWAN_WEBHOOK_RETRY_S: envValue("SDWAN_WEBHOOK_RETRY_S", retrySeconds, withDefault(DEFAULT_WEBHOOK_RETRY_S)),
  SDWAN_WEBHOOK_ALLOW_HTTP: envValue("SDWAN_WEBHOOK_ALLOW_HTTP", httpReceivers, withDefault<HttpReceivers>([])),
};

/** The SDWAN_OIDC_* variables that mean nothing without an issuer. */
const OIDC_DEPENDENTS = [
  "SDWAN_OIDC_AUDIENCE",
  "SDWAN_OIDC_USERNAME_CLAIM",
  "SDWAN_OIDC_GROUPS_CLAIM",
  "SDWAN_OIDC_ADMIN_GROUPS",
  "SDWAN_OIDC_VIEWER_GROUPS",
  "SDWAN_OIDC_CLIENT_ID",
  "SDWAN_OIDC_SCOPES",
] as const;

const Env = t.type(EnvCodecs);

/**
 * Reads the configuration from `env` (the process's environment unless given:
 * this is the only code that reads it). On failure, one line naming the first
 * bad variable and what is wrong with it (never its value: it may be a secret).
 */
export const loadConfig = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): E.Either<string, Config> => {
  const decoded = Env.decode(env);
  if (E.isLeft(decoded)) {
    const first = decoded.left[0];
    const name = first?.context[1]?.key ?? "environment";
    return E.left(`${name}: ${first?.message ?? "is not valid"}`);
  }
  const tracing = decodeTracing(env);
  if (E.isLeft(tracing)) return tracing;
  const v = decoded.right;
  if ((v.SDWAN_ADMIN_USER === undefined) !== (v.SDWAN_ADMIN_PASSWORD === undefined)) {
    return E.left(
      v.SDWAN_ADMIN_USER === undefined
        ? "SDWAN_ADMIN_USER: must be set when SDWAN_ADMIN_PASSWORD is"
        : "SDWAN_ADMIN_PASSWORD: must be set when SDWAN_ADMIN_USER is",
    );
  }
  if (v.SDWAN_STORAGE === "postgres" && v.SDWAN_DATABASE_URL === undefined) {
    return E.left("SDWAN_DATABASE_URL: must be set when SDWAN_STORAGE=postgres");
  }
  if (v.SDWAN_VIEWERS.length > 0 && v.SDWAN_HTPASSWD_FILE === undefined) {
    return E.left("SDWAN_VIEWERS: names users of SDWAN_HTPASSWD_FILE, which is not set");
  }
  const strayOidc = OIDC_DEPENDENTS.find((name) => (env[name] ?? "") !== "");
  if (v.SDWAN_OIDC_ISSUER === undefined && strayOidc !== undefined)
    return E.left(`${strayOidc}: needs SDWAN_OIDC_ISSUER, which is not set`);
  if (v.SDWAN_OIDC_ISSUER !== undefined && v.SDWAN_OIDC_AUDIENCE === undefined) {
    return E.left(
      "SDWAN_OIDC_AUDIENCE: must be set when SDWAN_OIDC_ISSUER is (the audience this service's tokens are issued for)",
    );
  }
  return E.right({
    host: v.SDWAN_HOST,
    port: v.SDWAN_PORT,
    dataDir: v.SDWAN_DATA_DIR,
    dataDirFromDefault: (env["SDWAN_DATA_DIR"] ?? "") === "",
    storage: v.SDWAN_STORAGE,
    databaseUrl: v.SDWAN_DATABASE_URL,
    masterKey: v.SDWAN_MASTER_KEY,
    previousMasterKeys: v.SDWAN_MASTER_KEY_PREVIOUS,
    admin:
      v.SDWAN_ADMIN_USER === undefined || v.SDWAN_ADMIN_PASSWORD === undefined
        ? undefined
        : { user: v.SDWAN_ADMIN_USER, password: v.SDWAN_ADMIN_PASSWORD },
    htpasswdFile: v.SDWAN_HTPASSWD_FILE,
    viewers: v.SDWAN_VIEWERS,
    groupsFile: v.SDWAN_GROUPS_FILE,
    orchestratorTimeoutMs: v.SDWAN_ORCHESTRATOR_TIMEOUT_MS,
    customersCacheTtlMs: v.SDWAN_CUSTOMERS_CACHE_TTL_MS,
    customersBound: { enterprises: v.SDWAN_CUSTOMERS_MAX_ENTERPRISES, replyBytes: v.SDWAN_CUSTOMERS_MAX_REPLY_BYTES },
    orchestratorAllowedHosts: v.SDWAN_ORCHESTRATOR_ALLOWED_HOSTS,
    orchestratorCaFile: v.SDWAN_ORCHESTRATOR_CA_FILE,
    logLevel: v.SDWAN_LOG_LEVEL,
    loginMaxFailures: v.SDWAN_LOGIN_MAX_FAILURES,
    loginWindowMs: v.SDWAN_LOGIN_WINDOW_MS,
    trustedProxies: v.SDWAN_TRUSTED_PROXIES,
    healthIntervalMs: v.SDWAN_HEALTH_INTERVAL_S === 0 ? undefined : v.SDWAN_HEALTH_INTERVAL_S * 1000,
    keyExpiryWarnDays: v.SDWAN_KEY_EXPIRY_WARN_DAYS,
    keyRenewal: { renewDays: v.SDWAN_KEY_RENEW_DAYS, overlapMs: v.SDWAN_KEY_RENEW_OVERLAP_H * 3_600_000 },
    auditRetention: {
      maxEntries: v.SDWAN_AUDIT_MAX_ENTRIES,
      maxAttempts: v.SDWAN_AUDIT_MAX_ATTEMPTS,
      maxAgeMs: v.SDWAN_AUDIT_MAX_AGE_DAYS * DAY_MS,
    },
    console: v.SDWAN_CONSOLE === "on",
    apiKeyDir: v.SDWAN_APIKEY_DIR,
    keyReferences: {
      env: Object.fromEntries(
        Object.entries(env).filter(
          // The keys only: the two settings that share the prefix are not keys.
          (entry): entry is [string, string] =>
            entry[0].startsWith("SDWAN_APIKEY_") &&
            !["SDWAN_APIKEY_DIR", "SDWAN_APIKEY_REREAD_S"].includes(entry[0]) &&
            entry[1] !== undefined,
        ),
      ),
      rereadMs: v.SDWAN_APIKEY_REREAD_S * 1000,
    },
    oidc:
      v.SDWAN_OIDC_ISSUER === undefined || v.SDWAN_OIDC_AUDIENCE === undefined
        ? undefined
        : {
            issuer: v.SDWAN_OIDC_ISSUER,
            audience: v.SDWAN_OIDC_AUDIENCE,
            usernameClaim: v.SDWAN_OIDC_USERNAME_CLAIM,
            groupsClaim: v.SDWAN_OIDC_GROUPS_CLAIM,
            adminGroups: v.SDWAN_OIDC_ADMIN_GROUPS,
            viewerGroups: v.SDWAN_OIDC_VIEWER_GROUPS,
            clientId: v.SDWAN_OIDC_CLIENT_ID,
            scopes: v.SDWAN_OIDC_SCOPES,
          },
    events: { maxStreams: v.SDWAN_EVENTS_MAX_STREAMS, heartbeatMs: v.SDWAN_EVENTS_HEARTBEAT_S * 1000 },
    webhooks: { retrySchedule: v.SDWAN_WEBHOOK_RETRY_S, allowHttp: v.SDWAN_WEBHOOK_ALLOW_HTTP },
    tracing: tracing.right,
  });
};
