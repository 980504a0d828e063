import { randomBytes } from "node:crypto";
import { client, type Credentials, type Reply } from "./http.js";

/** Keys of the orchestrator simulator's sample data (orchestrator-simulator/README.md). */
export const PARTNER_KEY = "sample-partner-key-1";
export const CUSTOMER_KEY = "sample-customer-key-1-1";
/** Enterprises of partner 1 in fixtures/sample.json. */
export const PARTNER_1_CUSTOMERS = 180;

export const anAdmin = (): Credentials => ({
  user: "e2e-admin",
  password: `e2e-pw-${randomBytes(12).toString("base64url")}`,
});
export const aMasterKey = (): string => randomBytes(32).toString("base64");

/**
 * A REST client that remembers every reply, so a test can check that no body
 * ever carried a secret.
 */
export const recordingClient = (origin: string, credentials: Credentials, replies: Reply[]) => {
  const inner = client(origin, credentials);
  const keep = async (reply: Promise<Reply>): Promise<Reply> => {
    const r = await reply;
    replies.push(r);
    return r;
  };
  return {
    get: (path: string) => keep(inner.get(path)),
    post: (path: string, body: unknown) => keep(inner.post(path, body)),
    put: (path: string, body: unknown) => keep(inner.put(path, body)),
    delete: (path: string) => keep(inner.delete(path)),
  };
};
