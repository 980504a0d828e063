import { problemSlugOf, type Problem } from "@sdwan-connections/core/wire";

/**
 * How a call proves who is asking (SPEC §11), read from its Authorization header: a local user's name and password
 * (HTTP Basic, sent once to start a session), that sign-in's session token (`sdc_…`), an OpenID provider's access
 * token (OIDC bearer), or a service token (`sdw_…`).
 */
export type Scheme = "password" | "session" | "provider" | "token";

export const schemeOf = (authorization: string): Scheme =>
  authorization.startsWith("Basic ")
    ? "password"
    : authorization.startsWith("Bearer sdc_")
      ? "session"
      : authorization.startsWith("Bearer sdw_")
        ? "token"
        : "provider";

/** Each scheme's refusal in the console's words: what was refused, named as the user signed in, and what to do. */
const REFUSALS: Record<Scheme, { readonly title: string; readonly detail: string }> = {
  password: {
    title: "User name or password refused",
    detail: "The service refused this user name and password (HTTP Basic): check both and sign in again.",
  },
  session: {
    title: "Your session has ended",
    detail:
      "The session of your sign-in with a user name and password (HTTP Basic) is over (after 8 hours, or the user changed): sign in again.",
  },
  provider: {
    title: "Your sign-in at the OpenID provider was refused",
    detail: "The service refused the provider's access token (OIDC bearer): sign in at the provider again.",
  },
  token: {
    title: "The service token was refused",
    detail: "The service refused this service token (it may be revoked or expired): sign in with a valid one.",
  },
};

/**
 * A 401 as the user signed in knows it: a refusal that names their scheme, never another one's (the service may answer
 * a token it does not check as such with words about Basic credentials). The service's own reason is kept when it
 * checked the token as a bearer token (`WWW-Authenticate: Bearer …, error="invalid_token"`): then it says why (expired,
 * audience, signature, revoked), about that token.
 */
export const refusal = (authorization: string, problem: Problem, challenge: string | null): Problem => {
  const scheme = schemeOf(authorization);
  const { title, detail } = REFUSALS[scheme];
  // Only a Bearer challenge carries an error parameter (RFC 6750 §3).
  const checked = scheme !== "password" && (challenge ?? "").includes('error="invalid_token"');
  return {
    type: problem.type,
    title,
    status: problem.status,
    detail: checked ? `${detail} The service's answer: ${problem.detail}` : detail,
  };
};

/**
 * A 503 because the provider's keys cannot be read, said to the provider's user (the service's words speak of
 * Basic credentials, which still work, to whoever asks): what is wrong with their sign-in, and that it passes.
 */
export const providerUnavailable = (problem: Problem): Problem | undefined =>
  // The service's tag for a bearer token it cannot check now: the OpenID provider's keys cannot be read.
  problemSlugOf(problem.type) === "identity-provider-unavailable"
    ? {
        type: problem.type,
        title: "Your sign-in at the OpenID provider cannot be checked now",
        status: problem.status,
        detail:
          "The service cannot read the OpenID provider's keys to check your access token (OIDC bearer) right now: try again in a moment, or sign in as a local user.",
      }
    : undefined;
