/** A scripted fetch for the portal client, and the answers the unit and timing suites script with. */
import { inspect } from "node:util";
import * as E from "fp-ts/lib/Either.js";
import { ApiKey, type OrchestratorTarget, type OrchestratorUrl } from "@sdwan-connections/core";
import { expect } from "vitest";
import {
  createPortalOrchestrator,
  type FetchLike,
  type PortalCallEvent,
  type PortalOrchestratorOptions,
} from "../src/index.js";

export const SECRET = "unit-secret-key-7f3a9c";
export const target = (orchestratorUrl = "https://vco.example.net/"): OrchestratorTarget => ({
  orchestratorUrl: orchestratorUrl as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(SECRET),
});

export interface Scripted {
  readonly status: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly throws?: unknown;
  /** Answers after this long, unless the call is aborted first. */
  readonly delayMs?: number;
}

export type Check = "partner" | "customer" | "list" | "tokens" | "refresh" | "create" | "download" | "revoke";
export const CHECK_OF: Record<string, Check> = {
  "enterpriseProxy/getEnterpriseProxyProperty": "partner",
  "enterprise/getEnterprise": "customer",
  "enterpriseProxy/getEnterpriseProxyEnterprises": "list",
  "enterpriseProxy/getApiTokens": "tokens",
  "enterprise/getApiTokens": "tokens",
  "enterprise/refreshApiToken": "refresh",
  "enterpriseProxy/createApiToken": "create",
  "enterpriseProxy/downloadApiToken": "download",
  "enterpriseProxy/revokeApiToken": "revoke",
};

export const abortable = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
    });
  });

/** A fetch answering each portal method from its own script (the last step repeats), recording what it was asked. */
export const scriptedFetch = (script: Partial<Record<Check, readonly Scripted[]>>) => {
  const seen: { url: string; headers: Record<string, string>; body: string }[] = [];
  // Calls under way at once, and the most there ever were: concurrency proved by counting, not by a stopwatch.
  const inFlight = { now: 0, most: 0 };
  const fetch: FetchLike = async (url, init) => {
    const check = CHECK_OF[url.split("/portal/rest/")[1] ?? ""] as Check;
    const steps = script[check] ?? [{ status: 500, body: "no script" }];
    const step = steps[
      Math.min(seen.filter((s) => CHECK_OF[s.url.split("/portal/rest/")[1] ?? ""] === check).length, steps.length - 1)
    ] as Scripted;
    seen.push({ url, headers: init.headers, body: init.body });
    inFlight.now += 1;
    inFlight.most = Math.max(inFlight.most, inFlight.now);
    try {
      if (step.delayMs !== undefined) await abortable(step.delayMs, init.signal);
    } finally {
      inFlight.now -= 1;
    }
    if (step.throws !== undefined) throw step.throws;
    return {
      status: step.status,
      headers: { get: (name: string) => step.headers?.[name.toLowerCase()] ?? null },
      arrayBuffer: async () => new TextEncoder().encode(step.body ?? "").buffer,
    };
  };
  return { fetch, seen, inFlight };
};

export const make = (
  script: Partial<Record<Check, readonly Scripted[]>>,
  extra: Partial<PortalOrchestratorOptions> = {},
) => {
  const { fetch, seen, inFlight } = scriptedFetch(script);
  const events: PortalCallEvent[] = [];
  const orchestrator = createPortalOrchestrator({
    fetch,
    allowedHosts: undefined,
    backoffBaseMs: 4,
    random: () => 0.5,
    onCall: (event) => void events.push(event),
    ...extra,
  });
  const methods = (check: Check) => seen.filter((s) => CHECK_OF[s.url.split("/portal/rest/")[1] ?? ""] === check);
  return { orchestrator, seen, events, methods, inFlight };
};

export const expectNoKey = (value: unknown) => {
  expect(JSON.stringify(value)).not.toContain(SECRET);
  expect(
    String(E.isLeft(value as E.Either<unknown, unknown>) ? (value as E.Left<{ reason: string }>).left.reason : ""),
  ).not.toContain(SECRET);
  expect(inspect(value, { depth: 10 })).not.toContain(SECRET);
};

export const tagOf = (result: E.Either<{ _tag: string }, unknown>) => (E.isLeft(result) ? result.left._tag : "Right");

export const PROXY = { status: 200, body: '{"id":1001,"enterpriseProxyId":10,"name":"x","value":"y"}' };
export const ENTERPRISE = { status: 200, body: '{"id":77,"logicalId":"u"}' };
export const ERROR_400 = { status: 400, body: '{"error":{"code":-32603,"message":"privileges check failed"}}' };
export const TOKEN_ERROR = {
  status: 400,
  body: '{"error":{"code":-32000,"message":"tokenError [expired or invalid token]"}}',
};
export const HTML = (status: number) => ({
  status,
  body: "<html><body><h1>Bad Gateway</h1></body></html>",
  headers: { "content-type": "text/html" },
});
export const RESET = { status: 0, throws: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) };
