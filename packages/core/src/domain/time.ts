import * as t from "io-ts";

/**
 * The one form of a time, in and out (issue 36): RFC 3339. Read: a `date-time` with an offset (`2027-01-31T00:00:00Z`,
 * `…T01:00:00.5+01:00`), each field in its range (no `T24:00:00`, no leap second `:60`, which a Date cannot hold, no
 * 30 February), the instant within years 0000 to 9999 (what four digits write). Written: UTC with milliseconds,
 * `Date#toISOString` for every time in that range. A time beyond it is never made: a JWT's `exp` past the year 9999
 * is read as no expiry (`writableTime`), rather than written as `+275760-…`, which no RFC 3339 reader takes.
 */
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.\d{1,9})?(?:[Zz]|[+-](\d\d):(\d\d))$/;
/** RFC 3339's `full-date`, read as that day's midnight UTC where a bound is asked (`since`). */
const FULL_DATE = /^\d{4}-\d\d-\d\d$/;

const EARLIEST_MS = Date.parse("0000-01-01T00:00:00.000Z");
const LATEST_MS = Date.parse("9999-12-31T23:59:59.999Z");

/** `time` when RFC 3339 can write it (years 0000 to 9999), else undefined. */
export const writableTime = (time: Date): Date | undefined => {
  const ms = time.getTime();
  return ms >= EARLIEST_MS && ms <= LATEST_MS ? time : undefined;
};

// Date would take 2027-02-30 as 2 March: the day must exist in its month.
const isCalendarDate = (year: number, month: number, day: number): boolean => {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return month >= 1 && month <= 12 && date.getUTCDate() === day;
};

/** A time written as RFC 3339 `date-time`, read; undefined for anything else (a field out of range included). */
export const parseTime = (text: string): Date | undefined => {
  const fields = DATE_TIME.exec(text);
  if (fields === null) return undefined;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHour = 0, offsetMinute = 0] = fields
    .slice(1)
    .map((field) => Number(field ?? 0));
  const inRange =
    isCalendarDate(year, month, day) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHour <= 23 &&
    offsetMinute <= 59;
  const time = inRange ? new Date(text) : undefined;
  return time === undefined || Number.isNaN(time.getTime()) ? undefined : writableTime(time);
};

/** A `date-time`, or a `full-date` as its midnight UTC (RFC 3339 both): where a time is a bound (`since`). */
export const parseTimeOrDate = (text: string): Date | undefined =>
  parseTime(FULL_DATE.test(text) ? `${text}T00:00:00Z` : text);

/** A time as every answer, file, row and log line writes it: RFC 3339, UTC, milliseconds. */
export const timeText = (time: Date): string => time.toISOString();

const isTime = (input: unknown): input is Date => input instanceof Date && writableTime(input) !== undefined;

/**
 * A time as a client writes it: RFC 3339 with an offset, decoded to a Date; encoded as every time is written
 * (`timeText`).
 */
export const Rfc3339TimeCodec = new t.Type<Date, string, unknown>(
  "Rfc3339Time",
  isTime,
  (input, context) => {
    if (input === undefined) return t.failure(input, context, "is required");
    const time = typeof input === "string" ? parseTime(input) : undefined;
    return time !== undefined
      ? t.success(time)
      : t.failure(input, context, "must be an RFC 3339 time with an offset, e.g. 2027-01-31T00:00:00Z");
  },
  timeText,
);

const WRITTEN = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A time as the service writes it (`timeText`: UTC, milliseconds), decoded to a Date: stored rows, files, answers. */
export const IsoTimeCodec = new t.Type<Date, string, unknown>(
  "IsoTime",
  isTime,
  (input, context) => {
    const time = typeof input === "string" && WRITTEN.test(input) ? parseTime(input) : undefined;
    return time !== undefined ? t.success(time) : t.failure(input, context, "must be an ISO 8601 UTC time");
  },
  timeText,
);
