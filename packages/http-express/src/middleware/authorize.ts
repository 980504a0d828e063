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

/**
 * What a route needs (SPEC §11), declared where the route is: `connection` (the verb the route's `:alias` needs,
 * which may depend on the request), `any` (a read every principal may make: it answers only what the principal
 * may read), `add` (a manage grant somewhere; the route checks the alias its body names), `role` (a role to
 * read, admin to write: every other route, and any request no route answers), or `admin` (as `role`, and a
 * viewer's read refused with these words).
 */
export type Need =
  | { readonly connection: GrantVerb | ((req: Request) => GrantVerb) }
  | { readonly admin: string }
  | "any"
  | "add"
  | "role";

/** What the authorization keeps for the routes' decisions: absent for an admin or without authentication. */
interface Decision {
  readonly user: AuthenticatedUser;
  readonly access: Access;
  /** Answers 403 with `detail`; a refused write is audited first, naming `alias` when the route has one. */
  readonly refuse: (detail: string, alias?: string) => void;
}
const DECISION = "authorization";

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

export interface AuthorizeOptions {
  /** The grants, from memory. */
  readonly grants: GrantService;
  /** SDWAN_GROUPS_FILE's groups, as read last. */
  readonly groups: () => Groups;
  /** Audits a refused write (naming the connection when the route has one); the 403 is sent once it settles. */
  readonly onForbidden?: (req: Request, res: Response, alias?: string) => Promise<void>;
}

/**
 * Who may do what (SPEC §5 and §11), after the authentication: the user's access read once per request, for the
 * routes' `needs`. An admin may do everything, and is not looked at again.
 */
export const authorize =
  ({ grants, groups, onForbidden }: AuthorizeOptions): RequestHandler =>
  (req, res, next) => {
    const user = userOf(res.locals);
    if (user === undefined || user.role === "admin") return next();
    const refuse = (detail: string, alias?: string): void => {
      const send = () => sendProblem(res, problem("forbidden", detail));
      if (onForbidden === undefined || READ_METHODS.has(req.method)) send();
      else void onForbidden(req, res, alias).finally(send);
    };
    grants
      .list()()
      .then((listed) => {
        if (E.isLeft(listed)) return sendProblem(res, domainErrorToProblem(listed.left));
        const access = accessOf(principalOf(user, groups()), listed.right);
        // A viewer reads every connection: its lists stay whole.
        if (user.role === undefined) res.locals["access"] = access;
        res.locals[DECISION] = { user, access, refuse } satisfies Decision;
        next();
      })
      .catch(next);
  };

/**
 * The decision for a route that needs `need`: anyone else than an admin gets what the union of its role and its
 * grants gives. A connection it may not read answers exactly as an unknown one, with no store work either way
 * (400 when malformed, else 404); one it reads without the verb asked, 403 naming the verb. Lists are filtered
 * by the routes (`mayRead`), never refused.
 */
export const needs = (need: Need): RequestHandler =>
  // Named: a test finds it first in every route.
  function decide(req, res, next) {
    const decision = res.locals[DECISION] as Decision | undefined;
    if (decision === undefined) return next();
    const { user, access, refuse } = decision;
    const reading = READ_METHODS.has(req.method);
    if (typeof need === "object" && "connection" in need) {
      const alias = req.params["alias"] as string;
      const verb = typeof need.connection === "function" ? need.connection(req) : need.connection;
      const verbs = access.verbs(alias);
      if (!verbs.includes("read")) {
        const decoded = decodeInput(AliasCodec, "alias")(alias);
        return sendProblem(res, domainErrorToProblem(E.isLeft(decoded) ? decoded.left : notFound(decoded.right)));
      }
      if (!verbs.includes(verb))
        return refuse(`This principal may not ${verb} this connection (it may ${verbs.join(", ")}).`, alias);
      return next();
    }
    if (need === "add" && access.granted("manage")) {
      res.locals["access"] = access;
      return next();
    }
    if (need === "any" && reading) return next();
    if (user.role === undefined) return refuse(withoutRole(user));
    if (!reading) return refuse("This user may only read (role viewer).");
    if (typeof need === "object") return refuse(need.admin);
    next();
  };
