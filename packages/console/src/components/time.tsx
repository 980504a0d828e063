/** The console's one time format: the reader's local time to the minute, with its zone ("05/14/2024, 09:30 CEST"). */
const LOCAL = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  timeZoneName: "short",
});

export const localTime = (iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : LOCAL.format(date);
};

/** An instant in local time, the ISO 8601 original in its tooltip (and `datetime`); never wrapped. */
export const Time = ({ at }: { readonly at: Date | string }) => {
  const iso = typeof at === "string" ? at : at.toISOString();
  return (
    <time dateTime={iso} title={iso}>
      {localTime(iso)}
    </time>
  );
};
