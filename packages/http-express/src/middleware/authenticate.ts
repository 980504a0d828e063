import type { Metrics } from "@sdwan-connections/composition";
import {
  isServiceTokenSecret,
  type DomainError,
  type ServiceTokenRefusal,
  type ServiceTokens,
} from "@sdwan-connections/core";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import * as O from "fp-ts/lib/Option.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { parseBasic, type AuthenticatedUser, type Authenticator } from "../auth/authenticator.js";
import { parseBearer, type BearerAuthenticator, type BearerRefusal } from "../auth/bearer.js";
import { isConsoleSession } from "../auth/console-session.js";
import type { Attempt, LoginThrottle } from "../auth/throttle.js";
import { domainErrorToProblem, problem } from "../errors.js";
import { sendProblem } from "../respond.js";
import { clientOf } from "./request-context.js";

/**
 * How an open stream checks its request's credentials again (SPEC §11: a revoked or expired token ends its open
 * streams within a second): the user they prove now, or undefined once they are refused. A check that cannot be
 * made now (the store or the provider out of reach) keeps the user; Basic credentials keep it too (a change to the
 * users file applies at the next request). Each check is served from the verifier's cache while it is fresh.
 */
export type Recheck = () => Promise<AuthenticatedUser | undefined>;

/** The request's recheck, as `authenticate` left it (none without authentication). */
export const recheckOf = (locals: Record<string, unknown>): Recheck | undefined =>
  locals["recheck"] as Recheck | undefined;

/** A token's recheck: its verifier's cached answer, else a new verification; only a refusal of the token itself ends it. */
const recheckToken =
  <R extends { readonly _tag: string }>(
    user: AuthenticatedUser,
    cached: () => AuthenticatedUser | undefined,
    verify: () => TaskEither<R, AuthenticatedUser>,
  ): Recheck =>
  async () => {
    const hit = cached();
    if (hit !== undefined) return hit;
    const verdict = await verify()();
    return verdict._tag === "Right" ? verdict.right : verdict.left._tag === "InvalidToken" ? undefined : user;
  };

/** What checking new credentials ends in: the user they prove (or none), or a refusal before any check. */
type Verdict =
  | { readonly user: AuthenticatedUser | undefined }
  | { readonly retryAfterSeconds: number }
  | { readonly unavailable: DomainError };

export interface AuthenticateOptions {
  readonly authenticator: Authenticator;
  readonly throttle: LoginThrottle;
  readonly metrics: Metrics;
  /** Bearer tokens of the OpenID provider (SPEC §11); undefined: Basic only. */
  readonly bearer?: BearerAuthenticator | undefined;
  /** Service tokens (`Bearer sdw_…`). */
  readonly serviceTokens: ServiceTokens;
}

/**
 * HTTP Basic credentials, bearer and service tokens, and the failed-login
 * throttle: who is asking (what it may do is `authorize`'s). Synchronous on purpose: a recently verified header is admitted
 * without a promise turn (the common case); only a new one waits for the
 * shared failure count and bcrypt.
 */
export const authenticate = ({
  authenticator,
  throttle,
  metrics,
  bearer,
  serviceTokens,
}: AuthenticateOptions): RequestHandler => {
  // With a provider, every 401 offers both schemes (SPEC §11); a refused token's says why it was (RFC 6750 §3).
  const unauthorized = (req: Request, res: Response, detail: string, bearerError = ""): void => {
    metrics.loginFailures.inc({ status: "401" });
    // A script that asks (X-Requested-With, as the console does) gets no Basic challenge: the browser would
    // otherwise open its own login dialog over the page's.
    const challenges = [
      ...(req.headers["x-requested-with"] === undefined ? ['Basic realm="sdwan", charset="UTF-8"'] : []),
      ...(bearer === undefined && bearerError === "" ? [] : [`Bearer realm="sdwan"${bearerError}`]),
    ];
    sendProblem(
      res,
      problem(
        "unauthorized",
        detail,
        challenges.length === 0 ? {} : { headers: { "WWW-Authenticate": challenges.join(", ") } },
      ),
    );
  };

  // What the service takes, for a request that sent none of it.
  const provider = bearer === undefined ? "" : ", a bearer token of the OpenID provider";
  const anyOf = `HTTP Basic credentials${provider} or a service token (Bearer sdw_…)`;
  /**
   * Why credentials proved no one, in the words of the scheme the client used (issue 36: a bearer token was told
   * "Valid HTTP Basic credentials are required."). A token the provider or the service tokens refused says why itself.
   */
  const refusalOf = (header: string | undefined): string => {
    const scheme = /^(\S+)/.exec(header ?? "")?.[1]?.toLowerCase();
    if (scheme === undefined) return `Credentials are required: ${anyOf}.`;
    if (scheme === "basic") return "Valid HTTP Basic credentials are required: these are not.";
    if (scheme !== "bearer") return `The ${scheme} scheme is not one this service takes: it takes ${anyOf}.`;
    if (isConsoleSession(header)) return "The console session has expired or is not valid: sign in again.";
    if (bearer !== undefined) return "The bearer token was refused: it is not a well-formed token.";
    return "The bearer token was refused: it is not a service token (sdw_…), and no OpenID provider is configured.";
  };

  const admit = (
    req: Request,
    res: Response,
    next: NextFunction,
    user: AuthenticatedUser | undefined,
    recheck: (user: AuthenticatedUser) => Recheck = (user) => async () => user,
  ): void => {
    if (user === undefined) {
      unauthorized(req, res, refusalOf(req.headers.authorization));
      return;
    }
    // What it may do is `authorize`'s to decide.
    res.locals["user"] = user;
    res.locals["recheck"] = recheck(user);
    next();
  };

  // Checks under way, by address and header: the same credentials sent many times at once are checked once (and count once).
  const checks = new Map<string, Promise<Verdict>>();
  // A full check (bcrypt) is due: its failure is counted first, in the count every instance shares, so a burst cannot outrun it.
  const verify = (attempt: Attempt, header: string): Promise<Verdict> => {
    const key = `${attempt.address} ${header}`;
    const underWay = checks.get(key);
    if (underWay !== undefined) return underWay;
    const verdict = throttle
      .reserve(attempt)
      .then(async (reservation): Promise<Verdict> => {
        if (reservation._tag === "Refused") return { retryAfterSeconds: reservation.retryAfterSeconds };
        if (reservation._tag === "Unavailable") return { unavailable: reservation.error };
        const user = await authenticator.authenticate(header);
        if (user === undefined) await reservation.failed();
        else reservation.giveBack();
        return { user };
      })
      .finally(() => checks.delete(key));
    checks.set(key, verdict);
    return verdict;
  };

  const tooManyFailures = (res: Response, retryAfter: number): void => {
    metrics.loginFailures.inc({ status: "429" });
    sendProblem(
      res,
      problem("too-many-failed-logins", "Too many failed logins from this client; try again later.", {
        headers: { "Retry-After": String(retryAfter) },
      }),
    );
  };

  const refuseToken = (req: Request, res: Response, refusal: BearerRefusal): void => {
    if (refusal._tag === "InvalidToken") {
      unauthorized(req, res, `The bearer token was refused: ${refusal.reason}.`, ', error="invalid_token"');
      return;
    }
    sendProblem(
      res,
      problem(
        "identity-provider-unavailable",
        "The OpenID provider's keys cannot be read right now; HTTP Basic credentials still work.",
        {
          headers: { "Retry-After": String(refusal.retryAfterSeconds) },
        },
      ),
    );
  };

  const refuseServiceToken = (req: Request, res: Response, refusal: ServiceTokenRefusal): void =>
    refusal._tag === "InvalidToken"
      ? unauthorized(req, res, `The service token was refused: ${refusal.reason}.`, ', error="invalid_token"')
      : sendProblem(res, domainErrorToProblem(refusal.error));

  /** A token admitted from its verifier's cache without waiting, or once verified; refused as `refuse` says. */
  const checkToken = <R extends { readonly _tag: string }>(
    [req, res, next]: [Request, Response, NextFunction],
    cached: () => AuthenticatedUser | undefined,
    verify: () => TaskEither<R, AuthenticatedUser>,
    refuse: (req: Request, res: Response, refusal: R) => void,
  ): void => {
    const again = (user: AuthenticatedUser) => recheckToken(user, cached, verify);
    const hit = cached();
    if (hit !== undefined) return admit(req, res, next, hit, again);
    verify()()
      .then((verdict) =>
        verdict._tag === "Right" ? admit(req, res, next, verdict.right, again) : refuse(req, res, verdict.left),
      )
      .catch(next);
  };

  return (req, res, next) => {
    const address = clientOf(res.locals);
    const header = req.headers.authorization;
    // A service token is one lookup of its hash: nothing to guess (256 random bits), so no bcrypt and no failed-login count.
    const secret = header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
    if (secret !== undefined && isServiceTokenSecret(secret)) {
      checkToken(
        [req, res, next],
        () => serviceTokens.cached(secret),
        () => serviceTokens.verify(secret),
        refuseServiceToken,
      );
      return;
    }
    // A bearer token is checked by its signature: cheap, and nothing to guess, so the failed-login count has no part in it.
    // The console's session tokens are the authenticator's, not the provider's.
    const token = bearer === undefined || isConsoleSession(header) ? undefined : parseBearer(header);
    if (bearer !== undefined && token !== undefined) {
      checkToken(
        [req, res, next],
        () => bearer.cached(token),
        () => bearer.verify(token),
        refuseToken,
      );
      return;
    }
    const user = authenticator.cached(header);
    // Only new credentials are parsed: a recently verified header names its user.
    const credentials = user === undefined ? parseBasic(header) : O.none;
    const retryAfter = throttle.retryAfterSeconds(address, user?.name ?? O.toUndefined(credentials)?.name);
    if (retryAfter !== undefined) {
      tooManyFailures(res, retryAfter);
      return;
    }
    // Admitted from the cache, or refused without a check: a request without (Basic) credentials is the usual first step, no failed login.
    if (user !== undefined || header === undefined || O.isNone(credentials)) {
      admit(req, res, next, user);
      return;
    }
    verify({ address, user: credentials.value.name }, header)
      .then((verdict) =>
        "retryAfterSeconds" in verdict
          ? tooManyFailures(res, verdict.retryAfterSeconds)
          : "unavailable" in verdict
            ? sendProblem(res, domainErrorToProblem(verdict.unavailable))
            : admit(req, res, next, verdict.user),
      )
      .catch(next);
  };
};
