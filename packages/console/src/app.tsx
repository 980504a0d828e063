import { useEffect, useState } from "preact/hooks";
import { Me, type Problem } from "@sdwan-connections/core/wire";
import { ApiError, getJson, ME_PATH, SESSION_ENDED } from "./api.js";
import { focusHeading } from "./focus.js";
import { completeSignIn, isProviderAnswer, providerOfService, providerSignOutUrl, type OidcProvider } from "./oidc.js";
import { ConnectionPage } from "./pages/connection.js";
import { ConnectionForm } from "./pages/connection-form.js";
import { ConnectionsPage } from "./pages/connections.js";
import { CustomersPage } from "./pages/customers.js";
import { GrantsPage } from "./pages/grants.js";
import { LoginPage, providerProblem } from "./pages/login.js";
import { TokensPage } from "./pages/tokens.js";
import { WebhookPage } from "./pages/webhook.js";
import { WebhooksPage } from "./pages/webhooks.js";
import { href, useRoute, type Route } from "./router.js";
import { schemeOf } from "./schemes.js";
import { may, mayAdd } from "./rights.js";
import { forget, isAdmin, remember, remembered, SessionContext, type Session } from "./session.js";
import { problemOf } from "./use-load.js";

const NotAllowed = () => (
  <>
    <h1 tabIndex={-1}>Not allowed</h1>
    <p>Neither this user's role nor its grants allow this page.</p>
  </>
);

const Page = ({ route, session }: { readonly route: Route; readonly session: Session }) => {
  switch (route.page) {
    case "connections":
      return <ConnectionsPage />;
    case "add":
      return mayAdd(session) ? <ConnectionForm /> : <NotAllowed />;
    case "connection":
      return <ConnectionPage alias={route.alias} />;
    case "edit":
      return may(session, "manage", route.alias) ? <ConnectionForm alias={route.alias} /> : <NotAllowed />;
    case "customers":
      return <CustomersPage alias={route.alias} />;
    case "grants":
      return isAdmin(session) ? <GrantsPage /> : <NotAllowed />;
    case "tokens":
      return isAdmin(session) ? <TokensPage /> : <NotAllowed />;
    case "webhooks":
      return isAdmin(session) ? <WebhooksPage /> : <NotAllowed />;
    case "webhook":
      return isAdmin(session) ? <WebhookPage id={route.id} /> : <NotAllowed />;
  }
};

type State =
  | { readonly phase: "resuming" }
  | {
      readonly phase: "signed-out";
      readonly user?: string;
      readonly failure?: Problem;
      /** The tab's service token was refused: the sign-in offers the token form first. */
      readonly withToken?: boolean;
    }
  | { readonly phase: "signed-in"; readonly session: Session };

/**
 * The console: sign-in (at the OpenID provider GET /auth/config names, or with a local user), or the tab's session
 * resumed after a reload or the provider's answer, then the pages the fragment names.
 */
export const App = () => {
  const [state, setState] = useState<State>(() => {
    const kept = remembered();
    if (isProviderAnswer() || kept?.token !== undefined) return { phase: "resuming" };
    return kept === undefined ? { phase: "signed-out" } : { phase: "signed-out", user: kept.user };
  });
  const [provider, setProvider] = useState<OidcProvider | null | undefined>(undefined);
  const route = useRoute();
  // After a page change, the page's heading takes the focus, so screen readers and keyboard users start there.
  useEffect(focusHeading, [route.page, "alias" in route ? route.alias : "id" in route ? route.id : undefined]);
  // And once signed in: the sign-in form that had it is gone.
  const signedIn = state.phase === "signed-in";
  useEffect(() => {
    if (signedIn) focusHeading();
  }, [signedIn]);

  // `failure`: why the service no longer accepts the tab's token, in words naming how the user signed in.
  const signOut = (failure?: Problem): void => {
    const kept = remembered();
    // A local user's name stays for the next sign-in, the token goes; a provider's user signs in there again, and
    // a service token's user with a token.
    const withToken = kept?.token !== undefined && schemeOf(`Bearer ${kept.token}`) === "token";
    const user = kept?.provider === true || withToken ? undefined : kept?.user;
    if (user === undefined) forget();
    else remember({ user });
    setState({
      phase: "signed-out",
      ...(user === undefined ? {} : { user }),
      ...(failure === undefined ? {} : { failure }),
      ...(withToken ? { withToken } : {}),
    });
  };
  // Signing out of a provider's session ends it at the provider too, whose page comes back to the console.
  const signOutByUser = (): void => {
    const kept = remembered();
    if (kept?.provider !== true || provider == null) {
      signOut();
      return;
    }
    forget();
    setState({ phase: "resuming" });
    providerSignOutUrl(provider, kept.idToken).then(
      (url) => (url === undefined ? setState({ phase: "signed-out" }) : location.assign(url)),
      () => setState({ phase: "signed-out" }),
    );
  };
  useEffect(() => {
    const kept = remembered();
    void providerOfService().then((found) => {
      setProvider(found);
      // Back from the provider with a code: its access token is the tab's session from now on.
      if (!isProviderAnswer()) return;
      (found === null
        ? Promise.reject(new Error("The service names no provider to sign in with."))
        : completeSignIn(found)
      )
        .then(async ({ accessToken, idToken }) => {
          const authorization = `Bearer ${accessToken}`;
          const me = await getJson(authorization, ME_PATH, Me);
          remember({
            user: me.user,
            token: accessToken,
            provider: true,
            ...(idToken === undefined ? {} : { idToken }),
          });
          setState({ phase: "signed-in", session: { ...me, authorization } });
        })
        .catch((error: unknown) => setState({ phase: "signed-out", failure: providerProblem(error) }));
    });
    // A reload: the service checks the tab's token (GET /me); a refused one (ended, expired) asks to sign in again.
    if (isProviderAnswer() || kept?.token === undefined) return;
    const authorization = `Bearer ${kept.token}`;
    getJson(authorization, ME_PATH, Me).then(
      (me) => setState({ phase: "signed-in", session: { ...me, authorization } }),
      // A refusal (401) has signed the tab out already (SESSION_ENDED), knowing how it had signed in.
      (error: unknown) =>
        error instanceof ApiError && error.problem.status === 401 ? undefined : signOut(problemOf(error)),
    );
  }, []);
  useEffect(() => {
    const ended = (event: Event): void => signOut((event as CustomEvent<Problem>).detail);
    addEventListener(SESSION_ENDED, ended);
    return () => removeEventListener(SESSION_ENDED, ended);
  }, []);

  if (state.phase === "resuming") return <p aria-live="polite">Loading…</p>;
  if (state.phase === "signed-out") {
    return (
      <LoginPage
        user={state.user}
        provider={provider}
        failure={state.failure}
        withToken={state.withToken === true}
        onSignIn={(session, token) => {
          remember({ user: session.user, token });
          setState({ phase: "signed-in", session });
        }}
      />
    );
  }
  const { session } = state;
  return (
    <SessionContext.Provider value={session}>
      {/* Not a route: the fragment names pages, so "#main" alone would open the connections page. */}
      <a
        class="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          focusHeading();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href({ page: "connections" })}>
          sdwan-connections
        </a>
        <nav aria-label="Main">
          <a href={href({ page: "connections" })}>Connections</a>
          {isAdmin(session) ? (
            <>
              <a href={href({ page: "grants" })}>Grants</a>
              <a href={href({ page: "tokens" })}>Tokens</a>
              <a href={href({ page: "webhooks" })}>Webhooks</a>
            </>
          ) : null}
        </nav>
        <span class="who">
          {session.user} ({session.role ?? "no role"})
        </span>
        <button type="button" onClick={signOutByUser}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Page route={route} session={session} />
      </main>
    </SessionContext.Provider>
  );
};
