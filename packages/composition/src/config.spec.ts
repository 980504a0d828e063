import { inspect } from "node:util";
import * as E from "fp-ts/lib/Either.js";
import { masterKey } from "@sdwan-connections/secrets";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

const fails = (env: Record<string, string>) => {
  const result = loadConfig(env);
  if (E.isRight(result)) throw new Error("expected a failure");
  return result.left;
};

describe("loadConfig", () => {
  it("applies docs/interface.md §6 defaults", () => {
    expect(loadConfig({})).toEqual(
      E.right({
        host: "127.0.0.1",
        port: 8990,
        dataDir: "./data",
        dataDirFromDefault: true,
        storage: "lowdb",
        databaseUrl: undefined,
        masterKey: undefined,
        previousMasterKeys: [],
        admin: undefined,
        htpasswdFile: undefined,
        viewers: [],
        orchestratorTimeoutMs: 10_000,
        customersCacheTtlMs: 60_000,
        keyExpiryWarnDays: [30, 7, 1],
        keyRenewal: { renewDays: 30, overlapMs: 24 * 3600 * 1000 },
        customersBound: { enterprises: 100_000, replyBytes: 32 * 1024 * 1024 },
        orchestratorAllowedHosts: undefined,
        logLevel: "info",
        loginMaxFailures: 10,
        loginWindowMs: 60_000,
        trustedProxies: [],
        auditRetention: { maxEntries: 10_000, maxAttempts: 10_000, maxAgeMs: 90 * 24 * 3600 * 1000 },
        console: true,
        events: { maxStreams: 200, heartbeatMs: 15_000 },
        webhooks: { retrySchedule: [10, 60, 300, 1800, 7200, 21600, 86400], allowHttp: [] },
        healthIntervalMs: 300_000,
        keyReferences: { env: {}, rereadMs: 30_000 },
      }),
    );
  });

  it("reads SDWAN_APIKEY_REREAD_S (1 to 60) and hands on only the SDWAN_APIKEY_… variables, for env: references", () => {
    const config = loadConfig({
      SDWAN_APIKEY_REREAD_S: "5",
      SDWAN_APIKEY_LAB: "k",
      SDWAN_MASTER_KEY_X: "no",
      HOME: "/",
    });
    expect(E.isRight(config) && config.right.keyReferences).toEqual({ env: { SDWAN_APIKEY_LAB: "k" }, rereadMs: 5000 });
    expect(E.isLeft(loadConfig({ SDWAN_APIKEY_REREAD_S: "61" }))).toBe(true);
  });

  it("reads every variable", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    const config = loadConfig({
      SDWAN_HOST: "0.0.0.0",
      SDWAN_PORT: "9000",
      SDWAN_STORAGE: "postgres",
      SDWAN_DATABASE_URL: "postgres://u:p@db/sdwan",
      SDWAN_MASTER_KEY: key,
      SDWAN_MASTER_KEY_PREVIOUS: ` ${Buffer.alloc(32, 9).toString("base64")}, ,${Buffer.alloc(32, 8).toString("base64")},`,
      SDWAN_ADMIN_USER: "root",
      SDWAN_ADMIN_PASSWORD: "long-enough",
      SDWAN_HTPASSWD_FILE: "/etc/sdwan/users",
      SDWAN_VIEWERS: "ann, bob,,",
      SDWAN_ORCHESTRATOR_TIMEOUT_MS: "2500",
      SDWAN_CUSTOMERS_CACHE_TTL_MS: "0",
      SDWAN_CUSTOMERS_MAX_ENTERPRISES: "5000",
      SDWAN_CUSTOMERS_MAX_REPLY_BYTES: "2097152",
      SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: " VCO.example.net, ,[::1],10.0.0.1 ",
      SDWAN_LOG_LEVEL: "debug",
      SDWAN_AUDIT_MAX_ENTRIES: "500",
      SDWAN_AUDIT_MAX_ATTEMPTS: "2000",
      SDWAN_AUDIT_MAX_AGE_DAYS: "7",
      SDWAN_CONSOLE: "off",
      SDWAN_TRUSTED_PROXIES: " 10.42.0.0/16, ,fd00:10:244::/56,192.0.2.7 ",
      SDWAN_APIKEY_DIR: "/etc/sdwan/keys",
      SDWAN_EVENTS_MAX_STREAMS: "50",
      SDWAN_EVENTS_HEARTBEAT_S: "1",
      SDWAN_KEY_RENEW_DAYS: "14",
      SDWAN_KEY_RENEW_OVERLAP_H: "0",
    });
    expect(config).toMatchObject(
      E.right({
        host: "0.0.0.0",
        port: 9000,
        storage: "postgres",
        masterKey: masterKey(Buffer.alloc(32, 7)),
        previousMasterKeys: [masterKey(Buffer.alloc(32, 9)), masterKey(Buffer.alloc(32, 8))],
        admin: { user: "root", password: "long-enough" },
        viewers: ["ann", "bob"],
        orchestratorTimeoutMs: 2500,
        customersCacheTtlMs: 0,
        customersBound: { enterprises: 5_000, replyBytes: 2_097_152 },
        orchestratorAllowedHosts: ["vco.example.net", "::1", "10.0.0.1"],
        logLevel: "debug",
        auditRetention: { maxEntries: 500, maxAttempts: 2_000, maxAgeMs: 7 * 24 * 3600 * 1000 },
        console: false,
        trustedProxies: [
          { address: "10.42.0.0", prefix: 16, family: "ipv4" },
          { address: "fd00:10:244::", prefix: 56, family: "ipv6" },
          { address: "192.0.2.7", prefix: 32, family: "ipv4" },
        ],
        apiKeyDir: "/etc/sdwan/keys",
        events: { maxStreams: 50, heartbeatMs: 1_000 },
        keyRenewal: { renewDays: 14, overlapMs: 0 },
      }),
    );
  });

  it.each([
    [{ SDWAN_PORT: "80a" }, "SDWAN_PORT: must be an integer from 0 to 65535"],
    [{ SDWAN_EVENTS_HEARTBEAT_S: "30" }, "SDWAN_EVENTS_HEARTBEAT_S: must be an integer from 1 to 15"],
    [{ SDWAN_EVENTS_MAX_STREAMS: "0" }, "SDWAN_EVENTS_MAX_STREAMS: must be an integer from 1 to 100000"],
    [{ SDWAN_AUDIT_MAX_ENTRIES: "0" }, "SDWAN_AUDIT_MAX_ENTRIES: must be an integer from 1 to 10000000"],
    [{ SDWAN_AUDIT_MAX_ATTEMPTS: "many" }, "SDWAN_AUDIT_MAX_ATTEMPTS: must be an integer from 1 to 10000000"],
    [{ SDWAN_PORT: "70000" }, "SDWAN_PORT: must be an integer from 0 to 65535"],
    [{ SDWAN_HOST: "not a host" }, "SDWAN_HOST: must be an IP address or a host name"],
    [{ SDWAN_STORAGE: "mysql" }, "SDWAN_STORAGE: must be one of lowdb, postgres"],
    [
      { SDWAN_MASTER_KEY: "c2hvcnQ=" },
      "SDWAN_MASTER_KEY: must be the base64 encoding of exactly 32 bytes (e.g. `openssl rand -base64 32`)",
    ],
    [
      { SDWAN_MASTER_KEY_PREVIOUS: `${Buffer.alloc(32, 9).toString("base64")},c2hvcnQ=` },
      "SDWAN_MASTER_KEY_PREVIOUS: entry 2 must be the base64 encoding of exactly 32 bytes (e.g. `openssl rand -base64 32`)",
    ],
    [{ SDWAN_LOG_LEVEL: "loud" }, "SDWAN_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent"],
    [{ SDWAN_CUSTOMERS_CACHE_TTL_MS: "-1" }, "SDWAN_CUSTOMERS_CACHE_TTL_MS: must be an integer from 0 to 86400000"],
    [
      { SDWAN_CUSTOMERS_MAX_ENTERPRISES: "0" },
      "SDWAN_CUSTOMERS_MAX_ENTERPRISES: must be an integer from 1 to 10000000",
    ],
    [
      { SDWAN_CUSTOMERS_MAX_REPLY_BYTES: "1023" },
      "SDWAN_CUSTOMERS_MAX_REPLY_BYTES: must be an integer from 1024 to 1073741824",
    ],
    [{ SDWAN_ORCHESTRATOR_TIMEOUT_MS: "0" }, "SDWAN_ORCHESTRATOR_TIMEOUT_MS: must be an integer from 1 to 600000"],
    [
      { SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "good.example, bad host" },
      "SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: must be a comma-separated list of host names or IP addresses",
    ],
    [{ SDWAN_ADMIN_USER: "root" }, "SDWAN_ADMIN_PASSWORD: must be set when SDWAN_ADMIN_USER is"],
    [{ SDWAN_ADMIN_USER: "root", SDWAN_ADMIN_PASSWORD: "short" }, "SDWAN_ADMIN_PASSWORD: must be 8 to 1024 characters"],
    [{ SDWAN_STORAGE: "postgres" }, "SDWAN_DATABASE_URL: must be set when SDWAN_STORAGE=postgres"],
    [
      { SDWAN_STORAGE: "postgres", SDWAN_DATABASE_URL: "mysql://x" },
      "SDWAN_DATABASE_URL: must be a postgres:// or postgresql:// URL",
    ],
    [
      { SDWAN_TRUSTED_PROXIES: "10.0.0.0/8, ingress.local" },
      "SDWAN_TRUSTED_PROXIES: must be a comma-separated list of IPv4 or IPv6 networks (address/prefix, or an address)",
    ],
    [
      { SDWAN_TRUSTED_PROXIES: "10.0.0.0/33" },
      "SDWAN_TRUSTED_PROXIES: must be a comma-separated list of IPv4 or IPv6 networks (address/prefix, or an address)",
    ],
    [
      { SDWAN_TRUSTED_PROXIES: "fd00::/129" },
      "SDWAN_TRUSTED_PROXIES: must be a comma-separated list of IPv4 or IPv6 networks (address/prefix, or an address)",
    ],
    [
      { SDWAN_TRUSTED_PROXIES: "10.0.0.0/8/8" },
      "SDWAN_TRUSTED_PROXIES: must be a comma-separated list of IPv4 or IPv6 networks (address/prefix, or an address)",
    ],
    [{ SDWAN_KEY_RENEW_DAYS: "0" }, "SDWAN_KEY_RENEW_DAYS: must be an integer from 1 to 180"],
    [{ SDWAN_KEY_RENEW_DAYS: "365" }, "SDWAN_KEY_RENEW_DAYS: must be an integer from 1 to 180"],
    [{ SDWAN_KEY_RENEW_OVERLAP_H: "-1" }, "SDWAN_KEY_RENEW_OVERLAP_H: must be an integer from 0 to 8760"],
    [{ SDWAN_KEY_RENEW_OVERLAP_H: "1.5" }, "SDWAN_KEY_RENEW_OVERLAP_H: must be an integer from 0 to 8760"],
    [{ SDWAN_VIEWERS: "ann" }, "SDWAN_VIEWERS: names users of SDWAN_HTPASSWD_FILE, which is not set"],
  ])("refuses %j with one line naming the variable", (env, line) => {
    expect(fails(env)).toBe(line);
  });

  it("turns background health off with 0, and reads SDWAN_WEBHOOK_ALLOW_HTTP as true, false or the hosts http may reach", () => {
    const config = (env: Record<string, string>) => E.getOrElseW((left: string) => left)(loadConfig(env));
    expect(config({ SDWAN_HEALTH_INTERVAL_S: "0" })).toMatchObject({ healthIntervalMs: undefined });
    expect(config({ SDWAN_HEALTH_INTERVAL_S: "60" })).toMatchObject({ healthIntervalMs: 60_000 });
    // SPEC §12: any interval from 1 s up is valid (for tests of renewal rounds).
    expect(config({ SDWAN_HEALTH_INTERVAL_S: "1" })).toMatchObject({ healthIntervalMs: 1_000 });
    expect(fails({ SDWAN_HEALTH_INTERVAL_S: "86401" })).toBe(
      "SDWAN_HEALTH_INTERVAL_S: must be 0 (off) or an integer from 1 to 86400",
    );
    expect(config({ SDWAN_WEBHOOK_ALLOW_HTTP: "true" })).toMatchObject({ webhooks: { allowHttp: "any" } });
    expect(config({ SDWAN_WEBHOOK_ALLOW_HTTP: "false" })).toMatchObject({ webhooks: { allowHttp: [] } });
    expect(config({ SDWAN_WEBHOOK_ALLOW_HTTP: " OpenNMS.example , 10.0.0.5,[::1]" })).toMatchObject({
      webhooks: { allowHttp: ["opennms.example", "10.0.0.5", "::1"] },
    });
    expect(fails({ SDWAN_WEBHOOK_ALLOW_HTTP: "yes please" })).toBe(
      "SDWAN_WEBHOOK_ALLOW_HTTP: must be true, false, or a comma-separated list of host names or IP addresses",
    );
  });

  it("reads a list of blanks as no allowlist (any host)", () => {
    expect(loadConfig({ SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: " , " })).toMatchObject(
      E.right({ orchestratorAllowedHosts: undefined }),
    );
  });

  it("never repeats a bad value, which may be a secret", () => {
    expect(fails({ SDWAN_MASTER_KEY: "super-secret-but-wrong" })).not.toContain("super-secret");
    expect(fails({ SDWAN_MASTER_KEY_PREVIOUS: "super-secret-but-wrong" })).not.toContain("super-secret");
    expect(fails({ SDWAN_ADMIN_USER: "root", SDWAN_ADMIN_PASSWORD: "pw" })).not.toContain("pw:");
  });
});

describe("loadConfig: OpenID Connect (SPEC §11)", () => {
  const issuer = { SDWAN_OIDC_ISSUER: "https://id.example.net/realms/sdwan", SDWAN_OIDC_AUDIENCE: "sdwan-connections" };

  it("is off unless an issuer is set, and reads every SDWAN_OIDC_* variable with its default", () => {
    expect(loadConfig({})).toMatchObject(E.right({ oidc: undefined }));
    expect(loadConfig(issuer)).toMatchObject(
      E.right({
        oidc: {
          issuer: "https://id.example.net/realms/sdwan",
          audience: "sdwan-connections",
          usernameClaim: "preferred_username",
          groupsClaim: "groups",
          adminGroups: [],
          viewerGroups: [],
          clientId: undefined,
          scopes: ["openid", "profile"],
        },
      }),
    );
    expect(
      loadConfig({
        ...issuer,
        SDWAN_OIDC_USERNAME_CLAIM: "email",
        SDWAN_OIDC_GROUPS_CLAIM: "realm_access.roles",
        SDWAN_OIDC_ADMIN_GROUPS: "sdwan-admins, ops",
        SDWAN_OIDC_VIEWER_GROUPS: "noc",
        SDWAN_OIDC_CLIENT_ID: "sdwan-console",
        SDWAN_OIDC_SCOPES: "openid  profile groups",
      }),
    ).toMatchObject(
      E.right({
        oidc: {
          usernameClaim: "email",
          groupsClaim: "realm_access.roles",
          adminGroups: ["sdwan-admins", "ops"],
          viewerGroups: ["noc"],
          clientId: "sdwan-console",
          scopes: ["openid", "profile", "groups"],
        },
      }),
    );
  });

  it("accepts http issuers on a loopback address only (tests, a sidecar)", () => {
    for (const url of ["http://127.0.0.1:8080", "http://localhost/issuer", "http://[::1]:9000/"])
      expect(E.isRight(loadConfig({ ...issuer, SDWAN_OIDC_ISSUER: url }))).toBe(true);
  });

  it.each([
    [
      { SDWAN_OIDC_ISSUER: "http://id.example.net", SDWAN_OIDC_AUDIENCE: "a" },
      "SDWAN_OIDC_ISSUER: must be an https:// URL (http:// only on a loopback address) without query, fragment or credentials",
    ],
    [
      { SDWAN_OIDC_ISSUER: "https://id.example.net/?realm=x", SDWAN_OIDC_AUDIENCE: "a" },
      "SDWAN_OIDC_ISSUER: must be an https:// URL (http:// only on a loopback address) without query, fragment or credentials",
    ],
    [
      { SDWAN_OIDC_ISSUER: "id.example.net", SDWAN_OIDC_AUDIENCE: "a" },
      "SDWAN_OIDC_ISSUER: must be an https:// URL (http:// only on a loopback address)",
    ],
    [
      { SDWAN_OIDC_ISSUER: "https://id.example.net" },
      "SDWAN_OIDC_AUDIENCE: must be set when SDWAN_OIDC_ISSUER is (the audience this service's tokens are issued for)",
    ],
    [{ SDWAN_OIDC_ADMIN_GROUPS: "ops" }, "SDWAN_OIDC_ADMIN_GROUPS: needs SDWAN_OIDC_ISSUER, which is not set"],
    [{ SDWAN_OIDC_CLIENT_ID: "console" }, "SDWAN_OIDC_CLIENT_ID: needs SDWAN_OIDC_ISSUER, which is not set"],
  ])("refuses %j with one line naming the variable", (env, line) => {
    expect(fails(env)).toBe(line);
  });
});

describe("loadConfig: OpenTelemetry traces (the standard OTEL_* variables)", () => {
  const tracingOf = (env: Record<string, string>) => {
    const config = loadConfig(env);
    if (E.isLeft(config)) throw new Error(config.left);
    return config.right.tracing;
  };

  it("is off unless an OTLP endpoint is named or OTEL_TRACES_EXPORTER=otlp, and off again with none or OTEL_SDK_DISABLED", () => {
    expect(tracingOf({})).toBeUndefined();
    expect(tracingOf({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" })).toBeUndefined();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(tracingOf(endpoint)?.endpoint).toBe("http://collector:4318/v1/traces");
    expect(tracingOf({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toBeUndefined();
    expect(tracingOf({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
    expect(tracingOf({ OTEL_TRACES_EXPORTER: "otlp" })?.endpoint).toBe("http://localhost:4318/v1/traces");
  });

  it("reads every variable, the traces-specific ones over the general ones, with the specification's defaults", () => {
    const defaults = tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example.net/otlp/" });
    expect({ ...defaults, headers: defaults?.headers() }).toEqual({
      endpoint: "https://collector.example.net/otlp/v1/traces",
      headers: {},
      timeoutMs: 10_000,
      compression: "none",
      resource: { "service.name": "sdwan-connections" },
      sampler: { name: "parentbased_always_on", ratio: 1 },
      batchDelayMs: 5_000,
    });
    const all = tracingOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://ignored:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/custom/traces",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-tenant=a,authorization=Basic%20YWxhZGRpbjpvcGVu",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: " x-tenant = b ",
      OTEL_EXPORTER_OTLP_TIMEOUT: "3000",
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "2000",
      OTEL_EXPORTER_OTLP_COMPRESSION: "none",
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "gzip",
      OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attributes,deployment.environment.name=lab",
      OTEL_SERVICE_NAME: "sdwan-eu",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
    expect({ ...all, headers: all?.headers() }).toEqual({
      endpoint: "http://collector:4318/custom/traces",
      headers: { "x-tenant": "b", authorization: "Basic YWxhZGRpbjpvcGVu" },
      timeoutMs: 2000,
      compression: "gzip",
      resource: { "service.name": "sdwan-eu", "deployment.environment.name": "lab" },
      sampler: { name: "parentbased_traceidratio", ratio: 0.25 },
      batchDelayMs: 100,
    });
    expect(tracingOf({ OTEL_TRACES_EXPORTER: "otlp", OTEL_RESOURCE_ATTRIBUTES: "service.name=a" })?.resource).toEqual({
      "service.name": "a",
    });
  });

  it("keeps the collector's headers out of the configuration's JSON and inspection (they may hold credentials)", () => {
    const tracing = tracingOf({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_HEADERS: "api-key=s3cr3t-value" });
    expect(tracing?.headers()).toEqual({ "api-key": "s3cr3t-value" });
    expect(
      JSON.stringify(loadConfig({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_HEADERS: "api-key=s3cr3t-value" })),
    ).not.toContain("s3cr3t");
    expect(inspect(tracing, { depth: 5 })).not.toContain("s3cr3t");
  });

  it("refuses bad values naming the variable, never repeating the value", () => {
    const cases: [Record<string, string>, string][] = [
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" },
        "OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL",
      ],
      [
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://user:s3cr3t@collector/" },
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be",
      ],
      [{ OTEL_TRACES_EXPORTER: "zipkin" }, "OTEL_TRACES_EXPORTER: must be one of otlp, none"],
      [{ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http/json"],
      [{ OTEL_EXPORTER_OTLP_HEADERS: "s3cr3t" }, "OTEL_EXPORTER_OTLP_HEADERS: must be comma-separated name=value"],
      [{ OTEL_EXPORTER_OTLP_HEADERS: "a=s3cr3t%0d%0aX: y" }, "OTEL_EXPORTER_OTLP_HEADERS: must be"],
      [{ OTEL_EXPORTER_OTLP_TRACES_HEADERS: "a=%zz-s3cr3t" }, "OTEL_EXPORTER_OTLP_TRACES_HEADERS: must be"],
      [{ OTEL_TRACES_SAMPLER: "sometimes" }, "OTEL_TRACES_SAMPLER: must be one of"],
      [{ OTEL_TRACES_SAMPLER_ARG: "1.5" }, "OTEL_TRACES_SAMPLER_ARG: must be a ratio from 0 to 1"],
      [{ OTEL_BSP_SCHEDULE_DELAY: "0" }, "OTEL_BSP_SCHEDULE_DELAY: must be an integer"],
    ];
    for (const [env, message] of cases) {
      const problem = fails(env);
      expect(problem).toContain(message);
      expect(problem).not.toContain("s3cr3t");
    }
  });
});
