import * as E from "fp-ts/lib/Either.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeAuditQuery } from "./audit.js";
import { IsoTimeCodec, parseTime, parseTimeOrDate, Rfc3339TimeCodec, timeText, writableTime } from "./time.js";

describe("times: one RFC 3339 form in and out", () => {
  it("reads a date-time with an offset, any case of T and Z, up to nine decimals", () => {
    expect(parseTime("2027-01-31T01:00:00+01:00")?.toISOString()).toBe("2027-01-31T00:00:00.000Z");
    expect(parseTime("2027-01-31t00:00:00.123456789z")?.toISOString()).toBe("2027-01-31T00:00:00.123Z");
    expect(parseTime("0000-01-01T00:00:00Z")?.toISOString()).toBe("0000-01-01T00:00:00.000Z");
    expect(parseTime("9999-12-31T23:59:59.999Z")?.toISOString()).toBe("9999-12-31T23:59:59.999Z");
  });

  // Issue 36: `T24:00:00Z` was taken (as the next midnight).
  it.each([
    "2027-01-31T24:00:00Z",
    "2027-01-31T23:60:00Z",
    "2027-01-31T23:59:60Z",
    "2027-02-30T00:00:00Z",
    "2027-13-01T00:00:00Z",
    "2027-00-01T00:00:00Z",
    "2027-01-31T00:00:00+24:00",
    "2027-01-31T00:00:00+01:60",
    "0000-01-01T00:00:00+00:01",
    "9999-12-31T23:59:59-00:01",
    "+275760-09-13T00:00:00.000Z",
    "2027-01-31T00:00:00",
    "2027-01-31 00:00:00Z",
    "2027-01-31T00:00Z",
    "2027-01-31",
  ])("refuses %s as a date-time", (text) => {
    expect(parseTime(text)).toBeUndefined();
    expect(E.isLeft(Rfc3339TimeCodec.decode(text))).toBe(true);
    expect(E.isLeft(IsoTimeCodec.decode(text))).toBe(true);
  });

  it("takes a full date where a time is a bound (the audit's since), and refuses T24:00 there too", () => {
    expect(parseTimeOrDate("2026-11-22")?.toISOString()).toBe("2026-11-22T00:00:00.000Z");
    expect(E.isRight(decodeAuditQuery({ since: "2026-11-22T10:00:00+02:00" }))).toBe(true);
    expect(E.isLeft(decodeAuditQuery({ since: "2026-11-22T24:00:00Z" }))).toBe(true);
    expect(E.isLeft(decodeAuditQuery({ since: "2026-11-22T10:00Z" }))).toBe(true);
  });

  it("writes every time it can read as it reads it back (property), and never a time beyond the year 9999", () => {
    const earliest = Date.parse("0000-01-01T00:00:00.000Z");
    const latest = Date.parse("9999-12-31T23:59:59.999Z");
    fc.assert(
      fc.property(fc.integer({ min: earliest, max: latest }), (ms) => {
        const text = timeText(new Date(ms));
        return (
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(text) &&
          parseTime(text)?.getTime() === ms &&
          Rfc3339TimeCodec.encode(new Date(ms)) === text
        );
      }),
      { numRuns: 2000 },
    );
    expect(writableTime(new Date(8.64e15))).toBeUndefined();
    expect(Rfc3339TimeCodec.is(new Date(8.64e15))).toBe(false);
  });
});
