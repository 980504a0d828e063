import type { Pool, PoolClient } from "pg";

/**
 * Runs `work` on a pooled client of its own. A client whose work failed may
 * still hold a lock or an open transaction, so it is discarded rather than
 * handed back to the pool (PostgreSQL rolls back what it held).
 */
export const withDedicatedClient = async <A>(pool: Pool, work: (client: PoolClient) => Promise<A>): Promise<A> => {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await work(client);
  } catch (error) {
    broken = error instanceof Error ? error : new Error("database work failed");
    throw error;
  } finally {
    client.release(broken);
  }
};
