import bcrypt from "bcryptjs";
import { vi } from "vitest";
import { ADMIN, BASE, client } from "./harness.js";

export interface BurstOutcome {
  /** Answers by status. */
  readonly statuses: Readonly<Record<number, number>>;
  /** The expensive checks actually made: bcrypt comparisons, or key checks answered (each one a comparison). */
  readonly checks: number;
}

const byStatus = (statuses: readonly number[]): Record<number, number> => {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
};

/** `size` wrong logins at once from this client, each with a password of its own (as a guesser sends them), spread over `urls`; bcrypt is counted. */
export const loginBurst = async (urls: readonly string[], size: number): Promise<BurstOutcome> => {
  const compare = vi.spyOn(bcrypt, "compare");
  try {
    const statuses = await Promise.all(
      Array.from({ length: size }, (_, i) =>
        client(urls[i % urls.length] as string)("GET", `${BASE}/connections`, {
          user: { name: ADMIN.name, password: `guess-${i}` },
        }).then((reply) => reply.status),
      ),
    );
    return { statuses: byStatus(statuses), checks: compare.mock.calls.length };
  } finally {
    compare.mockRestore();
  }
};

/** `size` key checks at once from this client, each with a wrong key of its own, spread over `urls`; the admin's credentials are verified first. */
export const keyCheckBurst = async (urls: readonly string[], size: number, alias: string): Promise<BurstOutcome> => {
  for (const url of urls) await client(url)("GET", `${BASE}/me`);
  const replies = await Promise.all(
    Array.from({ length: size }, (_, i) =>
      client(urls[i % urls.length] as string)("POST", `${BASE}/connections/${alias}/key-check`, {
        body: { apiKey: `wrong-key-${i}` },
      }),
    ),
  );
  return {
    statuses: byStatus(replies.map((reply) => reply.status)),
    checks: replies.filter((reply) => reply.status === 200 && reply.json<{ matches: boolean }>().matches === false)
      .length,
  };
};

/** One line of the report: what a burst got. */
export const describeBurst = (what: string, size: number, { statuses, checks }: BurstOutcome): string =>
  `${what}: ${size} at once, ${checks} checked; by status: ${Object.entries(statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(", ")}.`;
