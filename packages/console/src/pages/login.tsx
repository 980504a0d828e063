import { useRef, useState } from "preact/hooks";
import { Me, Session as ConsoleSession, type Problem } from "@sdwan-connections/core/wire";
import { ApiError, basicAuthorization, consoleProblem, getJson, ME_PATH } from "../api.js";
import { ProblemMessage } from "../components/problem.js";
import { signInAtProvider, type OidcProvider } from "../oidc.js";
import type { Session } from "../session.js";
import { problemOf } from "../use-load.js";

/** A sign-in at the provider that did not come through (refused there or by the service, or the provider unreachable). */
export const providerProblem = (error: unknown): Problem =>
  error instanceof ApiError
    ? error.problem
    : consoleProblem("The sign-in at the provider failed", error instanceof Error ? error.message : String(error));

const SERVICE_TOKEN = /^sdw_/;
const NOT_A_SERVICE_TOKEN = consoleProblem(
  "Not a service token",
  "A service token starts with sdw_ (an admin makes one on the Tokens page; it is shown once).",
);

/**
 * Sign in at the OpenID provider, when the service has one for the console, or with the service's own users:
 * the password is sent once (HTTP Basic) for a session token (GET /session), which the console keeps instead.
 * A refusal keeps the user name and empties only the password, which takes the focus. Or with a service token
 * (`sdw_…`, sent as a bearer token), kept for the tab as a session token is.
 */
export const LoginPage = ({
  user = "",
  provider,
  failure,
  withToken = false,
  onSignIn,
}: {
  readonly user?: string | undefined;
  readonly provider?: OidcProvider | null | undefined;
  /** Why the last sign-in failed, or why the tab's session ended (in words naming how the user signed in). */
  readonly failure?: Problem | undefined;
  /** Whether to offer the service token's form first (the tab's token was refused). */
  readonly withToken?: boolean;
  readonly onSignIn: (session: Session, token: string) => void;
}) => {
  const [problem, setProblem] = useState<Problem | undefined>(failure);
  const [busy, setBusy] = useState(false);
  const password = useRef<HTMLInputElement>(null);
  const submit = (event: SubmitEvent): void => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const authorization = basicAuthorization(String(data.get("user")), String(data.get("password")));
    password.current!.value = ""; // the password does not stay in the page
    setBusy(true);
    getJson(authorization, "/session", ConsoleSession)
      // Then who it is and its grants, with the session: the controls shown follow them.
      .then(async ({ token }) => {
        const bearer = `Bearer ${token}`;
        onSignIn({ ...(await getJson(bearer, ME_PATH, Me)), authorization: bearer }, token);
      })
      .catch((error: unknown) => {
        setBusy(false);
        setProblem(problemOf(error));
        password.current?.focus();
      });
  };
  const withServiceToken = (event: SubmitEvent): void => {
    event.preventDefault();
    const field = (event.currentTarget as HTMLFormElement).elements.namedItem("token") as HTMLInputElement;
    const token = field.value.trim();
    field.value = ""; // as the password: the token lives in the tab's session only
    if (!SERVICE_TOKEN.test(token)) {
      setProblem(NOT_A_SERVICE_TOKEN);
      return;
    }
    const bearer = `Bearer ${token}`;
    setBusy(true);
    getJson(bearer, ME_PATH, Me).then(
      (me) => onSignIn({ ...me, authorization: bearer }, token),
      (error: unknown) => {
        setBusy(false);
        setProblem(problemOf(error));
        field.focus();
      },
    );
  };
  const signInAtTheProvider = (chosen: OidcProvider): void => {
    setBusy(true);
    signInAtProvider(chosen).catch((error: unknown) => {
      setBusy(false);
      setProblem(providerProblem(error));
    });
  };
  return (
    <main class="login">
      <h1>sdwan-connections</h1>
      <form onSubmit={submit} aria-label="Sign in">
        {provider == null ? null : (
          <>
            <button type="button" class="provider" disabled={busy} onClick={() => signInAtTheProvider(provider)}>
              Sign in with {new URL(provider.issuer).host}
            </button>
            <p class="or">or as a local user:</p>
          </>
        )}
        <label for="user">User</label>
        <input
          id="user"
          name="user"
          autocomplete="username"
          required
          autofocus={user === "" && !withToken}
          defaultValue={user}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          autofocus={user !== ""}
          ref={password}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {problem === undefined ? null : <ProblemMessage problem={problem} />}
      </form>
      <details class="token-sign-in" open={withToken}>
        <summary>Sign in with a service token</summary>
        <form onSubmit={withServiceToken} aria-label="Sign in with a service token">
          <label for="token">Service token</label>
          <input
            id="token"
            name="token"
            type="password"
            autocomplete="off"
            required
            spellcheck={false}
            autofocus={withToken}
          />
          <button type="submit" disabled={busy}>
            Sign in with the token
          </button>
        </form>
      </details>
    </main>
  );
};
