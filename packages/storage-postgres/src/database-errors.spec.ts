import { describe, expect, it } from "vitest";
import { databaseFailure, describeDatabaseError, hasSqlState } from "./database-errors.js";

const withCode = (code: string, message = "server said: value 'hunter2' is bad") =>
  Object.assign(new Error(message), { code });

describe("describeDatabaseError", () => {
  it.each([
    [withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"), "PostgreSQL cannot be reached (ECONNREFUSED)"],
    [withCode("08006"), "PostgreSQL cannot be reached (SQLSTATE 08006)"],
    [withCode("57P01"), "PostgreSQL cannot be reached (SQLSTATE 57P01)"],
    [
      withCode("28P01", 'password authentication failed for user "sdwan"'),
      "PostgreSQL refused the credentials (SQLSTATE 28P01)",
    ],
    [withCode("3D000"), "the PostgreSQL database does not exist (SQLSTATE 3D000)"],
    [withCode("42P01"), "the connections table is missing: run the migrations (SQLSTATE 42P01)"],
    [withCode("22P02"), "PostgreSQL failed the query (SQLSTATE 22P02)"],
    [new Error("timeout exceeded when trying to connect"), "PostgreSQL did not answer in time"],
    [new Error("Connection terminated unexpectedly"), "the connection to PostgreSQL was lost"],
    [new Error("postgres://sdwan:hunter2@db/sdwan is invalid"), "PostgreSQL failed for an unknown reason"],
    ["a thrown string", "PostgreSQL failed for an unknown reason"],
  ])("describes %s in its own words", (error, expected) => {
    expect(describeDatabaseError(error)).toBe(expected);
  });

  it("never copies the driver's message, which may quote values or the connection string", () => {
    const described = describeDatabaseError(withCode("22P02", 'invalid input syntax: "postgres://sdwan:hunter2@db"'));
    expect(described).not.toContain("hunter2");
  });

  it("ignores a code that is not a plain token", () => {
    expect(describeDatabaseError(withCode("hunter2 secret"))).toBe("PostgreSQL failed for an unknown reason");
    expect(hasSqlState(withCode("23505"), "23505")).toBe(true);
    expect(hasSqlState(new Error("x"), "23505")).toBe(false);
  });

  it("makes a StorageFailure saying what was being done", () => {
    expect(databaseFailure("listing connections")(withCode("ECONNRESET"))).toEqual({
      _tag: "StorageFailure",
      reason: "Storage failure while listing connections: PostgreSQL cannot be reached (ECONNRESET).",
    });
  });
});
