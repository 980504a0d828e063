import * as TE from "fp-ts/lib/TaskEither.js";
import type { Pool } from "pg";
import { RateLimiterPostgres, type RateLimiterRes } from "rate-limiter-flexible";
import type { FailureCount, FailureCounter } from "@sdwan-connections/core";
import { databaseFailure } from "./database-errors.js";

/** The table of migration 5, in the layout rate-limiter-flexible's PostgreSQL store expects. */
export const FAILURES_TABLE = "sdwan_login_failures";

export interface PostgresFailureCounterOptions {
  readonly pool: Pool;
  readonly windowMs: number;
}

const countOf = (answer: RateLimiterRes | null): FailureCount =>
  answer === null
    ? { count: 0, msLeft: 0 }
    : { count: answer.consumedPoints, msLeft: Math.max(0, answer.msBeforeNext) };

/**
 * Core's FailureCounter in `sdwan_login_failures`, shared by every instance:
 * rate-limiter-flexible's PostgreSQL store, whose every change is one upsert,
 * so concurrent adds from any instance each get their own count. The table
 * comes from the migrations (the library is told not to create it). Should
 * the database not answer, every operation fails (no memory stands in: each
 * instance would then allow its own checks), and the throttle makes no check.
 */
export const createPostgresFailureCounter = ({ pool, windowMs }: PostgresFailureCounterOptions): FailureCounter => {
  const limiter = new RateLimiterPostgres({
    storeClient: pool,
    storeType: "pool",
    tableName: FAILURES_TABLE,
    tableCreated: true,
    // Only penalty, reward and get are used: the limit is the throttle's, so the library's own is never reached.
    points: Number.MAX_SAFE_INTEGER,
    duration: Math.ceil(windowMs / 1000),
  });
  const attempt = <A>(what: string, call: () => Promise<A>) => TE.tryCatch(call, databaseFailure(what));
  return {
    add: (client) => TE.map(countOf)(attempt("counting a failed login", () => limiter.penalty(client))),
    remove: (client) => TE.map(() => undefined)(attempt("taking back a failed login", () => limiter.reward(client))),
    peek: (client) => TE.map(countOf)(attempt("reading failed logins", () => limiter.get(client))),
  };
};
