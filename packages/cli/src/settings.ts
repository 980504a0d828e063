import type { Config, StoreLocation } from "@sdwan-connections/composition";
import type { CommandOutput } from "./command.js";
import { describeContext, type Context } from "./contexts.js";
import { record } from "./output.js";

// A URL (the database's, the collector's) without what may be secret: no password, no query (it may carry one too).
const withoutSecrets = (raw: string): string => {
  const url = new URL(raw);
  url.password = "";
  url.search = "";
  return url.toString();
};

/**
 * The effective settings, as `config` shows them: what the service and the CLI would use here and now.
 * Never a secret: the master key, the admin password and the database password are shown as set or not.
 */
export const describeSettings = (config: Config, store: StoreLocation, context?: Context): CommandOutput => {
  const data = {
    context: context === undefined ? null : { name: context.name, where: describeContext(context) },
    storage: config.storage,
    dataDir: store.kind === "lowdb" ? store.dataDir : config.dataDir,
    dataDirSource: config.dataDirFromDefault ? "default: ./data in the current directory" : "SDWAN_DATA_DIR",
    storeExists: store.kind === "lowdb" ? store.exists : null,
    database: config.databaseUrl === undefined ? null : withoutSecrets(config.databaseUrl),
    masterKey: config.masterKey === undefined ? "master.key in the data directory" : "SDWAN_MASTER_KEY (set)",
    previousMasterKeys: config.previousMasterKeys.length,
    apiKeyDir: config.apiKeyDir ?? null,
    listen: `${config.host}:${config.port}`,
    adminUser: config.admin?.user ?? null,
    htpasswdFile: config.htpasswdFile ?? null,
    viewers: config.viewers,
    orchestratorTimeoutMs: config.orchestratorTimeoutMs,
    orchestratorAllowedHosts: config.orchestratorAllowedHosts ?? null,
    orchestratorCaFile: config.orchestratorCaFile ?? null,
    customersCacheTtlMs: config.customersCacheTtlMs,
    customersBound: config.customersBound,
    healthIntervalMs: config.healthIntervalMs ?? null,
    auditRetention: config.auditRetention,
    loginMaxFailures: config.loginMaxFailures,
    loginWindowMs: config.loginWindowMs,
    trustedProxies: config.trustedProxies.map(({ address, prefix }) => `${address}/${prefix}`),
    logLevel: config.logLevel,
    console: config.console,
    // Where spans go and as what service: never the collector's headers (they may hold its credentials).
    traces:
      config.tracing === undefined
        ? null
        : {
            endpoint: withoutSecrets(config.tracing.endpoint),
            serviceName: config.tracing.resource["service.name"],
            sampler: config.tracing.sampler,
          },
  };
  const shown = (value: unknown): string =>
    value === null
      ? "-"
      : Array.isArray(value)
        ? value.join(", ") || "-"
        : typeof value === "object"
          ? JSON.stringify(value)
          : typeof value === "boolean"
            ? value
              ? "yes"
              : "no"
            : String(value);
  const rows: [string, unknown][] = [
    [
      "Context",
      data.context === null
        ? "none (set one with config set-context)"
        : `${data.context.name}: ${data.context.where}${"server" in (context ?? {}) ? " (the settings below are this machine's, not the service's)" : ""}`,
    ],
    ["Storage", store.title],
    ["Data directory", `${data.dataDir} (${data.dataDirSource})`],
    ["Store there", data.storeExists],
    ["Database", data.database],
    ["Master key", data.masterKey],
    ["Previous master keys", data.previousMasterKeys],
    ["Key files (file:) from", data.apiKeyDir ?? "nowhere: SDWAN_APIKEY_DIR is not set"],
    ["Listens on", data.listen],
    ["Admin user", data.adminUser],
    ["htpasswd file", data.htpasswdFile],
    ["Viewers", data.viewers],
    ["Orchestrator timeout (ms)", data.orchestratorTimeoutMs],
    ["Orchestrator hosts allowed", data.orchestratorAllowedHosts ?? "any"],
    ["Orchestrator CA file", data.orchestratorCaFile],
    ["Customers cache TTL (ms)", data.customersCacheTtlMs],
    [
      "Customers at most",
      `${data.customersBound.enterprises} enterprises, ${data.customersBound.replyBytes} bytes of reply`,
    ],
    ["Health checks every (ms)", data.healthIntervalMs ?? "off"],
    ["Audit retention", `${data.auditRetention.maxEntries} entries, ${data.auditRetention.maxAgeMs / 86_400_000} days`],
    ["Login failures allowed", `${data.loginMaxFailures} per ${data.loginWindowMs} ms`],
    ["Trusted proxies", data.trustedProxies],
    ["Log level", data.logLevel],
    ["Console", data.console],
    [
      "Traces",
      data.traces === null
        ? "off (no OTEL_EXPORTER_OTLP_ENDPOINT)"
        : `to ${data.traces.endpoint} as ${data.traces.serviceName}`,
    ],
  ];
  return {
    data,
    forPeople: (width) =>
      record(
        rows.map(([label, value]) => [label, shown(value)] as const),
        width,
      ),
  };
};
