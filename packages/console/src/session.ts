import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me } from "./api.js";

/**
 * Who is signed in. It lives in the page's memory only (never in storage or
 * a cookie): closing or reloading the tab signs out.
 */
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
