import { useState } from "preact/hooks";
import { basicAuthorization, getJson, Me, type Problem } from "../api.js";
import { ProblemMessage } from "../components/problem.js";
import type { Session } from "../session.js";
import { problemOf } from "../use-load.js";

/** Sign in with the service's own users (HTTP Basic, checked by asking who the credentials belong to). */
export const LoginPage = ({ onSignIn }: { readonly onSignIn: (session: Session) => void }) => {
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = (event: SubmitEvent): void => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const authorization = basicAuthorization(String(data.get("user")), String(data.get("password")));
    form.reset(); // the password does not stay in the page
    setBusy(true);
    getJson(authorization, "/me", Me).then(
      (me) => onSignIn({ ...me, authorization }),
      (error: unknown) => {
        setBusy(false);
        setProblem(problemOf(error));
      },
    );
  };
  return (
    <main class="login">
      <h1>sdwan-connections</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label for="user">User</label>
        <input id="user" name="user" autocomplete="username" required autofocus />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {problem === undefined ? null : <ProblemMessage problem={problem} />}
      </form>
    </main>
  );
};
