import type { ConnectionDetails, OrchestratorError } from "@sdwan-connections/core";
import { ORCHESTRATOR_PROBLEMS, type ConnectionDetails as DetailsAnswer } from "@sdwan-connections/core/wire";

// Every answer is decoded with the wire's codecs (`@sdwan-connections/core/wire`); here, only what the CLI makes of them.

/** An answer of the service: its status and its body's text. */
export interface Answer {
  readonly status: number;
  readonly text: string;
}

/** The details as core has them: the expiry as one value, when the service knows it. */
export const detailsView = ({ apiKeyExpiresAt, apiKeyExpirySource, ...details }: DetailsAnswer): ConnectionDetails => ({
  ...details,
  apiKeyExpiry:
    apiKeyExpiresAt === null || apiKeyExpirySource === null
      ? undefined
      : { expiresAt: apiKeyExpiresAt, source: apiKeyExpirySource },
});

// The orchestrator error each orchestrator problem's slug stands for (SPEC §3).
const ORCHESTRATOR_TAGS: ReadonlyMap<string, OrchestratorError["_tag"]> = new Map(
  Object.entries(ORCHESTRATOR_PROBLEMS).map(([tag, slug]) => [slug, tag as OrchestratorError["_tag"]]),
);

/** The orchestrator error a problem of slug `slug` is, with `reason`; undefined for any other problem. */
export const orchestratorErrorOf = (slug: string | undefined, reason: string): OrchestratorError | undefined => {
  const tag = ORCHESTRATOR_TAGS.get(slug ?? "");
  return tag === undefined ? undefined : { _tag: tag, reason };
};
