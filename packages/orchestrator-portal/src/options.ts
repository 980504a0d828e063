import type { Agent as HttpAgent } from "node:http";
import type { OrchestratorError } from "@sdwan-connections/core";
import type { CustomersBound } from "./customers-json/scanner.js";
import type { PortalMethod } from "./url.js";

/** The part of a fetch response this client reads (node-fetch's and WHATWG's both fit). */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  /** The body's bytes (node-fetch's, bounded by the response limit). */
  arrayBuffer(): Promise<ArrayBuffer>;
  /** The body as its chunks (node-fetch's stream, WHATWG's ReadableStream); read instead of `arrayBuffer()` when there. */
  readonly body?: AsyncIterable<Uint8Array | string> | null;
}

/** The fetch this client needs; defaults to node-fetch. `agent` is node-fetch's option (ignored by others). */
export type FetchLike = (
  url: string,
  init: {
    readonly method: "POST";
    readonly headers: Record<string, string>;
    readonly body: string;
    readonly signal: AbortSignal;
    readonly redirect: "manual";
    readonly agent: (url: URL) => HttpAgent;
    /** The most bytes of body read (node-fetch's option; others may ignore it: the body's size is checked after). */
    readonly size: number;
  },
) => Promise<FetchResponse>;

/**
 * How one portal call ended, for metrics: "ok", "refused" (by the
 * orchestrator), "cancelled" (its answer was no longer needed), or the error's tag.
 */
export type CallOutcome = "ok" | "refused" | "cancelled" | OrchestratorError["_tag"];

export interface PortalCallEvent {
  readonly method: PortalMethod;
  readonly outcome: CallOutcome;
  /** From the first attempt to the final answer, waits included. */
  readonly durationMs: number;
  readonly attempts: number;
  /**
   * What the last attempt met when it "could not connect" (a network error's
   * code, or the kind of answer that is not the orchestrator's) or the
   * orchestrator failed: for the log only, with `attempts`, since answers
   * tell these apart no more and count no attempts (they would map ports).
   */
  readonly detail?: string;
}

export interface PortalOrchestratorOptions {
  /**
   * The deadline of one request's orchestrator work (docs/interface.md §6
   * `SDWAN_ORCHESTRATOR_TIMEOUT_MS`): both identification checks, every
   * attempt and every wait. Default 10 000.
   */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, on 429, any 5xx (with or without the orchestrator's `error` body), and a dropped connection; default 2. */
  readonly retries?: number;
  /** First backoff step; default 150 ms, doubling, with jitter. */
  readonly backoffBaseMs?: number;
  /** Orchestrator host names allowed, lower-cased, IPv6 without brackets (`SDWAN_ORCHESTRATOR_ALLOWED_HOSTS`); omitted means any host. */
  readonly allowedHosts?: readonly string[] | undefined;
  /** How large a partner's customers may be; an answer beyond it is garbage. Default `DEFAULT_CUSTOMERS_BOUND`. */
  readonly customersBound?: CustomersBound;
  /** Extra certificate authorities (PEM) trusted for https orchestrators, beside Node's own roots. */
  readonly ca?: readonly string[];
  readonly fetch?: FetchLike;
  /** Called once per portal call (after its retries); for metrics. Carries no key and no URL. */
  readonly onCall?: (event: PortalCallEvent) => void;
  readonly random?: () => number;
}
