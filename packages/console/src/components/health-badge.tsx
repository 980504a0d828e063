import type { ConnectionHealth, HealthState } from "@sdwan-connections/core/wire";
import { Time } from "./time.js";

/** A health state in words (never in colour alone). */
export const HealthBadge = ({ state }: { readonly state: HealthState | undefined }) => (
  <span class={`badge ${state ?? "unknown"}`}>{state ?? "unknown"}</span>
);

/**
 * A connection's last known state and when it was last checked (by a
 * validation or a background check); "unknown" when it never was.
 */
export const LastKnownHealth = ({ health }: { readonly health: ConnectionHealth | undefined }) => {
  const checkedAt = health?.checks[0]?.at ?? health?.since ?? null;
  return (
    <>
      <HealthBadge state={health?.state} />
      {checkedAt === null ? null : (
        <span class="when">
          {" "}
          checked <Time at={checkedAt} />
        </span>
      )}
    </>
  );
};
