import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { orchestratorUnreachable, type Orchestrator } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Config } from "../config.js";
import type { LogSink } from "../log-sink.js";
import type { Tracing } from "../tracing.js";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

const isReadableCertificate = (pem: string): boolean => {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
};

/** The certificates of `SDWAN_ORCHESTRATOR_CA_FILE`, none when it is unset (`loadCertificateAuthorities`). */
export type CaFile = TE.TaskEither<string, readonly string[]>;

/**
 * The certificates of `SDWAN_ORCHESTRATOR_CA_FILE` (PEM, one or more), each checked to be a readable X.509
 * certificate, so a bad file stops the start instead of failing every orchestrator call later. Read once, when first
 * asked for: the orchestrator client and outbound-http's share the reading.
 */
export const loadCertificateAuthorities = (file: string | undefined): CaFile => {
  let read: ReturnType<CaFile> | undefined;
  const load = async () => {
    if (file === undefined) return E.right([]);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      return E.left(
        `SDWAN_ORCHESTRATOR_CA_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    const certificates = text.match(PEM_CERTIFICATE) ?? [];
    if (certificates.length === 0) return E.left(`SDWAN_ORCHESTRATOR_CA_FILE: ${file} holds no PEM certificate`);
    const unreadable = certificates.findIndex((pem) => !isReadableCertificate(pem));
    return unreadable === -1
      ? E.right(certificates)
      : E.left(`SDWAN_ORCHESTRATOR_CA_FILE: certificate ${unreadable + 1} in ${file} cannot be read`);
  };
  return () => (read ??= load());
};

/** The orchestrator-portal HTTP client, with the configured deadline, host allowlist and CAs (and each attempt traced when traces are on). */
export const openPortalOrchestrator =
  (config: Config, logger: LogSink, caFile: CaFile, tracing?: Tracing): TE.TaskEither<string, Orchestrator> =>
  async () => {
    // Loaded when asked for, not with the composition: a CLI command given the offline orchestrator never loads it.
    const { createPortalOrchestrator, defaultFetch } = await import("@sdwan-connections/orchestrator-portal");
    return E.map((ca: readonly string[]) =>
      createPortalOrchestrator({
        timeoutMs: config.orchestratorTimeoutMs,
        allowedHosts: config.orchestratorAllowedHosts,
        customersBound: config.customersBound,
        ca,
        ...(tracing === undefined ? {} : { fetch: tracing.traceFetch(defaultFetch) }),
        // Answers say only "could not connect"; what was met (a code, an answer that is not the API) is logged here.
        onCall: ({ method, outcome, attempts, durationMs, detail }) => {
          if (detail !== undefined)
            logger.warn(
              { method, outcome, attempts, durationMs: Math.round(durationMs), detail },
              "orchestrator call failed",
            );
        },
      }),
    )(await caFile());
  };

/** Frees an orchestrator's keep-alive sockets, when it holds any (the portal client does). */
export const closeOrchestrator = (orchestrator: Orchestrator): void => {
  if ("close" in orchestrator && typeof orchestrator.close === "function") orchestrator.close();
};

const NOT_ASKED = "this command does not ask an orchestrator";

/**
 * For a driver's work that never asks an orchestrator (the CLI's list, get, audit, export...): an
 * Orchestrator that admits nothing and answers every call unreachable, so that the HTTP client is not
 * even loaded (the CLI's start is quicker by the size of node-fetch and its retries).
 */
export const offlineOrchestrator: Orchestrator = {
  startDeadline: () => ({ expiresAt: Date.now() }),
  admits: () => E.left(NOT_ASKED),
  identify: () => TE.left(orchestratorUnreachable(NOT_ASKED)),
  listPartnerCustomers: () => TE.left(orchestratorUnreachable(NOT_ASKED)),
  listApiTokens: () => TE.left(orchestratorUnreachable(NOT_ASKED)),
  refreshApiToken: () => TE.left(orchestratorUnreachable(NOT_ASKED)),
  createApiToken: () => TE.left(orchestratorUnreachable(NOT_ASKED)),
  downloadApiToken: () => TE.left(orchestratorUnreachable(NOT_ASKED)),
  revokeApiToken: () => TE.left(orchestratorUnreachable(NOT_ASKED)),
};
