import { isLeft } from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me } from "@sdwan-connections/core/wire";

/** Who is signed in, and the `Authorization` header that proves it (a session token, never the password). */
export interface Session extends Me {
  readonly authorization: string;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export const useSession = (): Session => {
  const session = useContext(SessionContext);
  if (session === undefined) throw new Error("useSession outside a signed-in console");
  return session;
};

export const isAdmin = (session: Session): boolean => session.role === "admin";

/**
 * What the tab remembers across a reload, in its sessionStorage (gone with the tab): the user name,
 * and while signed in the session token of GET /session, or the OpenID provider's access token (`provider`)
 * and ID token (for the provider's sign-out). Never the password.
 */
const Remembered = t.intersection([
  t.type({ user: t.string }),
  t.partial({ token: t.string, provider: t.literal(true), idToken: t.string }),
]);
export type Remembered = t.TypeOf<typeof Remembered>;
const STORAGE_KEY = "sdwan-console";

export const remembered = (): Remembered | undefined => {
  try {
    const decoded = Remembered.decode(JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null"));
    return isLeft(decoded) ? undefined : decoded.right;
  } catch {
    return undefined; // storage refused (private mode) or unreadable: a sign-in as before
  }
};

export const remember = (value: Remembered): void => {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(value));
  } catch {
    // storage refused: the session lasts until a reload
  }
};

/** Forgets the tab's session and user name (a provider's user signs in there again, not with this form). */
export const forget = (): void => {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage refused: nothing was kept
  }
};
