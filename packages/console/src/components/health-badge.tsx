import type { HealthState } from "../api.js";

/** A health state in words (never in colour alone). */
export const HealthBadge = ({ state }: { readonly state: HealthState | undefined }) => (
  <span class={`badge ${state ?? "unknown"}`}>{state ?? "unknown"}</span>
);
