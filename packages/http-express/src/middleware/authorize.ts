import type { Groups } from "@sdwan-connections/composition";
import {
  accessOf,
  AliasCodec,
  decodeInput,
  notFound,
  type Access,
  type Grant,
  type GrantService,
  type GrantVerb,
  type Principal,
} from "@sdwan-connections/core";
import type { Request, RequestHandler, Response } from "express";
import * as E from "fp-ts/lib/Either.js";
import type { AuthenticatedUser } from "../auth/authenticator.js";
import { domainErrorToProblem, problem } from "../errors.js";
import { sendProblem } from "../respond.js";
import { userOf } from "./request-context.js";

const READ_METHODS = new Set(["GET", "HEAD"]);
// What a principal without a role may ask beside the connections its grants name: each answers what it may read.
const NO_ROLE_READS = new Set(["/me", "/connections", "/health/connections", "/audit", "/events"]);

/** The principal a user is (`user:NAME` for a local user, whose audit name stays plain), with its groups from both sources. */
export const principalOf = (user: AuthenticatedUser, groups: Groups): Principal => {
  const name = user.name.includes(":") ? user.name : `user:${user.name}`;
  return { name, groups: [...(user.groups ?? []), ...(groups.get(name) ?? [])], role: user.role };
};

/** What the authorization found for this request: undefined when the user may read every connection (an admin, a viewer, no authentication). */
export const accessOfRequest = (locals: Record<string, unknown>): Access | undefined =>
  locals["access"] as Access | undefined;

/** Whether the request's user may read `alias` (everyone may when there is no access to consult). */
export const mayRead = (locals: Record<string, unknown>): ((alias: string) => boolean) => {
  const access = accessOfRequest(locals);
  return access === undefined ? () => true : (alias) => access.verbs(alias).includes("read");
};

/**
 * What `user` may read now, decided as `authorize` decides it (SPEC §11): every alias with a role, else what its
 * grants give; undefined when the grants cannot be read now. For what holds a decision open (an event stream).
 */
export const readableBy = ({ grants, groups }: Pick<AuthorizeOptions, "grants" | "groups">) => {
  // Decided once per list of grants (the same array until they change) and principal: streams check every 500 ms.
  const decided = new WeakMap<readonly Grant[], Map<string, (alias: string) => boolean>>();
  return async (user: AuthenticatedUser): Promise<((alias: string) => boolean) | undefined> => {
    if (user.role !== undefined) return () => true;
    const listed = await grants.list()();
    if (E.isLeft(listed)) return undefined;
    const principal = principalOf(user, groups());
    const key = `${principal.name} ${principal.groups.join(" ")}`;
    const known = decided.get(listed.right) ?? new Map<string, (alias: string) => boolean>();
    decided.set(listed.right, known);
    const readable =
      known.get(key) ??
      (
        (access) => (alias: string) =>
          access.verbs(alias).includes("read")
      )(accessOf(principal, listed.right));
    known.set(key, readable);
    return readable;
  };
};

/** Why a principal has no role, as it came to have none (issue 36: a service token was told of the provider's groups). */
const withoutRole = (user: AuthenticatedUser): string =>
  user.name.startsWith("token:")
    ? "This service token has no role (it was created without one): it may do only what its grants give."
    : "This user has no role (in none of the provider's admin or viewer groups): it may do only what its grants give.";

const decodedPath = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

/** The connection a request names and the verb it needs (SPEC §11); undefined for any other request. */
const targetOf = (req: Request, path: string): { readonly alias: string; readonly verb: GrantVerb } | undefined => {
  const reading = READ_METHODS.has(req.method);
  const connection = /^\/connections\/([^/]+)(\/key-check)?$/.exec(path);
  const partner = /^\/partner\/([^/]+)\/customers$/.exec(path);
  const raw = connection?.[1] ?? partner?.[1];
  const alias = raw === undefined ? undefined : decodedPath(raw);
  if (alias === undefined) return undefined;
  if (partner !== null) return { alias, verb: "use" };
  // What is stored is read; a validation asks the orchestrator (use); anything else changes it or tests its key.
  const stored = typeof req.query["stored"] === "string" && /^true$/i.test(req.query["stored"]);
  return { alias, verb: connection?.[2] === undefined && reading ? (stored ? "read" : "use") : "manage" };
};

export interface AuthorizeOptions {
  /** The grants, from memory. */
  readonly grants: GrantService;
  /** SDWAN_GROUPS_FILE's groups, as read last. */
  readonly groups: () => Groups;
  /** Audits a refused write; the 403 is sent once it settles. */
  readonly onForbidden?: (req: Request, res: Response) => Promise<void>;
}

/**
 * Who may do what (SPEC §5 and §11), after the authentication: an admin everything; anyone else what the union
 * of its role and its grants gives. A connection it may not read answers exactly as an unknown one, with no store
 * work either way (400 when malformed, else 404); one it reads without the verb asked, 403 naming the verb; an
 * add is decided by the route once the body names the alias, before anything is looked up. Lists are filtered by
 * the routes (`mayRead`), never refused.
 */
export const authorize =
  ({ grants, groups, onForbidden }: AuthorizeOptions): RequestHandler =>
  (req, res, next) => {
    const user = userOf(res.locals);
    if (user === undefined || user.role === "admin") return next();
    const refuse = (detail: string): void => {
      const send = () => sendProblem(res, problem("forbidden", detail));
      if (onForbidden === undefined || READ_METHODS.has(req.method)) send();
      else void onForbidden(req, res).finally(send);
    };
    grants
      .list()()
      .then((listed) => {
        if (E.isLeft(listed)) return sendProblem(res, domainErrorToProblem(listed.left));
        const access = accessOf(principalOf(user, groups()), listed.right);
        // A viewer reads every connection: its lists stay whole.
        if (user.role === undefined) res.locals["access"] = access;
        const path = req.path.replace(/(.)\/$/, "$1");
        const target = targetOf(req, path);
        if (target !== undefined) {
          const verbs = access.verbs(target.alias);
          if (!verbs.includes("read")) {
            const decoded = decodeInput(AliasCodec, "alias")(target.alias);
            return sendProblem(res, domainErrorToProblem(E.isLeft(decoded) ? decoded.left : notFound(decoded.right)));
          }
          if (!verbs.includes(target.verb))
            return refuse(`This principal may not ${target.verb} this connection (it may ${verbs.join(", ")}).`);
          return next();
        }
        if (path === "/connections" && req.method === "POST" && access.granted("manage")) {
          res.locals["access"] = access;
          return next();
        }
        if (user.role === undefined && !(READ_METHODS.has(req.method) && NO_ROLE_READS.has(path)))
          return refuse(withoutRole(user));
        if (!READ_METHODS.has(req.method)) return refuse("This user may only read (role viewer).");
        next();
      })
      .catch(next);
  };
