import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { envValue, integer, oneOf, optional, text, withDefault } from "./env-values.js";

// ---- OpenTelemetry traces: the standard OTEL_* variables (opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables),
// decoded here like every other setting and handed to the SDK explicitly (docs/interface.md §6, "Traces").

/** Where and how spans are exported (OTLP over HTTP, JSON), and which are kept. */
export interface TracingConfig {
  /** The traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly endpoint: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)HEADERS: may carry the collector's credentials, so a function (never printed, never in JSON). */
  readonly headers: () => Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly compression: "gzip" | "none";
  /** The resource: OTEL_SERVICE_NAME (else `service.name` of OTEL_RESOURCE_ATTRIBUTES, else `sdwan-connections`) and OTEL_RESOURCE_ATTRIBUTES. */
  readonly resource: Readonly<Record<string, string>>;
  /** OTEL_TRACES_SAMPLER and its OTEL_TRACES_SAMPLER_ARG (a ratio, for the `traceidratio` ones). */
  readonly sampler: { readonly name: (typeof OTEL_SAMPLERS)[number]; readonly ratio: number };
  /** OTEL_BSP_SCHEDULE_DELAY: the most a finished span waits before it is sent (ms). */
  readonly batchDelayMs: number;
}

const OTEL_SAMPLERS = [
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
  "always_on",
  "always_off",
  "traceidratio",
] as const;

const httpUrl = (raw: string): E.Either<string, string> => {
  try {
    const url = new URL(raw);
    return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === ""
      ? E.right(raw)
      : E.left("must be an http:// or https:// URL without credentials (put them in OTEL_EXPORTER_OTLP_HEADERS)");
  } catch {
    return E.left("must be an http:// or https:// URL");
  }
};

// An HTTP header name (RFC 9110 token); values are printable (no control character: no header can be split).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const printable = (maxLength: number) => (value: string) =>
  value.length <= maxLength && [...value].every((char) => char >= " " && char !== "\x7f");

/** The W3C Baggage form both headers and resource attributes use: `key=value,key=value`, values percent-encoded. Never echoes a value. */
const keyValues =
  (keys: RegExp, values: (value: string) => boolean, what: string) =>
  (raw: string): E.Either<string, Readonly<Record<string, string>>> => {
    const pairs: [string, string][] = [];
    for (const item of raw.split(",")) {
      if (item.trim() === "") continue;
      const equals = item.indexOf("=");
      const key = item.slice(0, equals).trim();
      let value: string;
      try {
        value = decodeURIComponent(item.slice(equals + 1).trim());
      } catch {
        return E.left(`must be ${what} (a value is not valid percent-encoding)`);
      }
      if (equals < 1 || !keys.test(key) || !values(value)) return E.left(`must be ${what}`);
      pairs.push([key, value]);
    }
    return E.right(Object.fromEntries(pairs));
  };

const OtelCodecs = {
  OTEL_SDK_DISABLED: envValue("OTEL_SDK_DISABLED", (raw) => E.right(raw.toLowerCase() === "true"), withDefault(false)),
  OTEL_TRACES_EXPORTER: envValue<"otlp" | "none" | undefined>(
    "OTEL_TRACES_EXPORTER",
    (raw) => oneOf(["otlp", "none"] as const)(raw.trim().toLowerCase()),
    optional,
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: envValue<string | undefined>("OTEL_EXPORTER_OTLP_ENDPOINT", httpUrl, optional),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: envValue<string | undefined>(
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    httpUrl,
    optional,
  ),
  // The exporter this service ships speaks OTLP/HTTP with JSON, which every OTLP/HTTP collector accepts.
  OTEL_EXPORTER_OTLP_PROTOCOL: envValue("OTEL_EXPORTER_OTLP_PROTOCOL", oneOf(["http/json"] as const), optional),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: envValue(
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    oneOf(["http/json"] as const),
    optional,
  ),
  OTEL_EXPORTER_OTLP_HEADERS: envValue(
    "OTEL_EXPORTER_OTLP_HEADERS",
    keyValues(HEADER_NAME, printable(8192), "comma-separated name=value HTTP headers"),
    withDefault<Readonly<Record<string, string>>>({}),
  ),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: envValue(
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    keyValues(HEADER_NAME, printable(8192), "comma-separated name=value HTTP headers"),
    withDefault<Readonly<Record<string, string>>>({}),
  ),
  OTEL_EXPORTER_OTLP_TIMEOUT: envValue("OTEL_EXPORTER_OTLP_TIMEOUT", integer(1, 600_000), withDefault(10_000)),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: envValue<number | undefined>(
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
    integer(1, 600_000),
    optional,
  ),
  OTEL_EXPORTER_OTLP_COMPRESSION: envValue(
    "OTEL_EXPORTER_OTLP_COMPRESSION",
    oneOf(["gzip", "none"] as const),
    withDefault("none" as const),
  ),
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: envValue(
    "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
    oneOf(["gzip", "none"] as const),
    optional,
  ),
  OTEL_SERVICE_NAME: envValue<string | undefined>("OTEL_SERVICE_NAME", text, optional),
  OTEL_RESOURCE_ATTRIBUTES: envValue(
    "OTEL_RESOURCE_ATTRIBUTES",
    keyValues(/^[!-~]{1,255}$/, printable(4096), "comma-separated key=value resource attributes"),
    withDefault<Readonly<Record<string, string>>>({}),
  ),
  OTEL_TRACES_SAMPLER: envValue("OTEL_TRACES_SAMPLER", oneOf(OTEL_SAMPLERS), withDefault(OTEL_SAMPLERS[0])),
  OTEL_TRACES_SAMPLER_ARG: envValue<number | undefined>(
    "OTEL_TRACES_SAMPLER_ARG",
    (raw) =>
      /^(0|1)(\.\d+)?$/.test(raw) && Number(raw) <= 1 ? E.right(Number(raw)) : E.left("must be a ratio from 0 to 1"),
    optional,
  ),
  OTEL_BSP_SCHEDULE_DELAY: envValue("OTEL_BSP_SCHEDULE_DELAY", integer(1, 600_000), withDefault(5_000)),
};

const OtelEnv = t.type(OtelCodecs);

/**
 * Traces are on when an OTLP endpoint is named (or OTEL_TRACES_EXPORTER=otlp, which then means the
 * specification's default, http://localhost:4318), and off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true.
 * A failure names the variable, never its value (headers may hold credentials).
 */
export const decodeTracing = (
  env: Readonly<Record<string, string | undefined>>,
): E.Either<string, TracingConfig | undefined> => {
  const decoded = OtelEnv.decode(env);
  if (E.isLeft(decoded)) {
    const first = decoded.left[0];
    return E.left(`${first?.context[1]?.key ?? "OTEL_*"}: ${first?.message ?? "is not valid"}`);
  }
  const v = decoded.right;
  const named = v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? v.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporter = v.OTEL_TRACES_EXPORTER ?? (named === undefined ? "none" : "otlp");
  if (v.OTEL_SDK_DISABLED || exporter === "none") return E.right(undefined);
  const endpoint =
    v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    `${(v.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318").replace(/\/+$/, "")}/v1/traces`;
  const headers = { ...v.OTEL_EXPORTER_OTLP_HEADERS, ...v.OTEL_EXPORTER_OTLP_TRACES_HEADERS };
  return E.right({
    endpoint,
    headers: () => headers,
    timeoutMs: v.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? v.OTEL_EXPORTER_OTLP_TIMEOUT,
    compression: v.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? v.OTEL_EXPORTER_OTLP_COMPRESSION,
    resource: {
      ...v.OTEL_RESOURCE_ATTRIBUTES,
      "service.name": v.OTEL_SERVICE_NAME ?? v.OTEL_RESOURCE_ATTRIBUTES["service.name"] ?? "sdwan-connections",
    },
    sampler: { name: v.OTEL_TRACES_SAMPLER, ratio: v.OTEL_TRACES_SAMPLER_ARG ?? 1 },
    batchDelayMs: v.OTEL_BSP_SCHEDULE_DELAY,
  });
};
