import { ConnectionDetails, daysLeft } from "@sdwan-connections/core/wire";
import { aliasPath, getJson } from "../api.js";
import { useSession } from "../session.js";
import { useLoad } from "../use-load.js";

/** The colour, by the windows `/metrics` counts: urgent within 7 days (and expired), soon within 30. */
const urgencyOf = (days: number): string => (days <= 7 ? "expiry-urgent" : days <= 30 ? "expiry-soon" : "expiry-ok");

/**
 * The days left before a connection's key expires, in words (never in colour alone), the date and where it
 * comes from in its tooltip; "unknown" when no expiry is known (`unknown` set), else nothing.
 */
export const KeyExpiryBadge = ({
  expiresAt,
  source,
  unknown,
}: {
  readonly expiresAt: Date | null | undefined;
  readonly source: string | null | undefined;
  readonly unknown?: string;
}) => {
  if (expiresAt === null || expiresAt === undefined)
    return unknown === undefined ? null : <span class="badge unknown">{unknown}</span>;
  const days = daysLeft(expiresAt, new Date());
  return (
    <span
      class={`badge ${urgencyOf(days)}`}
      data-testid="key-expiry"
      title={`The key expires at ${expiresAt.toISOString()} (${source ?? "unknown source"})`}
    >
      {days <= 0 ? "key expired" : `key: ${days} ${days === 1 ? "day" : "days"} left`}
    </span>
  );
};

/** The badge of one connection of a list, from its stored form (no orchestrator call): nothing while loading or unknown. */
export const StoredKeyExpiry = ({ alias }: { readonly alias: string }) => {
  const session = useSession();
  const [stored] = useLoad(
    () => getJson(session.authorization, `${aliasPath(alias)}?stored=true`, ConnectionDetails),
    [session, alias],
  );
  return stored.state === "ready" ? (
    <KeyExpiryBadge expiresAt={stored.value.apiKeyExpiresAt} source={stored.value.apiKeyExpirySource} />
  ) : null;
};
