import * as t from "io-ts";
import { useRef, useState } from "preact/hooks";
import { basicAuthorization, getJson, Me, ME_PATH, type Problem } from "../api.js";
import { ProblemMessage } from "../components/problem.js";
import { signInAtProvider, type OidcProvider } from "../oidc.js";
import type { Session } from "../session.js";
import { problemOf } from "../use-load.js";

const ConsoleSession = t.type({ token: t.string });

/** A sign-in at the provider that did not come through (refused there, or the provider unreachable). */
export const providerProblem = (error: unknown): Problem => ({
  title: "The sign-in at the provider failed",
  status: 0,
  detail: error instanceof Error ? error.message : String(error),
});

/**
 * Sign in at the OpenID provider, when the service has one for the console, or with the service's own users:
 * the password is sent once (HTTP Basic) for a session token (GET /session), which the console keeps instead.
 * A refusal keeps the user name and empties only the password, which takes the focus.
 */
export const LoginPage = ({
  user = "",
  notice,
  provider,
  failure,
  onSignIn,
}: {
  readonly user?: string | undefined;
  readonly notice?: string | undefined;
  readonly provider?: OidcProvider | null | undefined;
  /** Why the last sign-in at the provider failed. */
  readonly failure?: Problem | undefined;
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
        {notice === undefined ? null : (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        {provider == null ? null : (
          <>
            <button type="button" class="provider" disabled={busy} onClick={() => signInAtTheProvider(provider)}>
              Sign in with {new URL(provider.issuer).host}
            </button>
            <p class="or">or as a local user:</p>
          </>
        )}
        <label for="user">User</label>
        <input id="user" name="user" autocomplete="username" required autofocus={user === ""} defaultValue={user} />
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
    </main>
  );
};
