import type { ConnectionHealth, HealthState } from "../api.js";

/** A health state in words (never in colour alone). */
export const HealthBadge = ({ state }: { readonly state: HealthState | undefined }) => (
  <span class={`badge ${state ?? "unknown"}`}>{state ?? "unknown"}</span>
);

/** An ISO 8601 instant to the minute, in UTC: short enough for a table cell or a phone. */
const shortTime = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

export const Time = ({ at }: { readonly at: string }) => <time dateTime={at}>{shortTime(at)}</time>;

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
