import { useEffect, useRef, useState } from "preact/hooks";
import { getJson, Me, SESSION_ENDED } from "./api.js";
import { ConnectionPage } from "./pages/connection.js";
import { ConnectionForm } from "./pages/connection-form.js";
import { ConnectionsPage } from "./pages/connections.js";
import { CustomersPage } from "./pages/customers.js";
import { LoginPage } from "./pages/login.js";
import { href, useRoute, type Route } from "./router.js";
import { isAdmin, remember, remembered, SessionContext, type Session } from "./session.js";

const NotAllowed = () => (
  <>
    <h1 tabIndex={-1}>Not allowed</h1>
    <p>This user may only read (role viewer).</p>
  </>
);

const Page = ({ route, session }: { readonly route: Route; readonly session: Session }) => {
  switch (route.page) {
    case "connections":
      return <ConnectionsPage />;
    case "add":
      return isAdmin(session) ? <ConnectionForm /> : <NotAllowed />;
    case "connection":
      return <ConnectionPage alias={route.alias} />;
    case "edit":
      return isAdmin(session) ? <ConnectionForm alias={route.alias} /> : <NotAllowed />;
    case "customers":
      return <CustomersPage alias={route.alias} />;
  }
};

type State =
  | { readonly phase: "resuming" }
  | { readonly phase: "signed-out"; readonly user?: string; readonly notice?: string }
  | { readonly phase: "signed-in"; readonly session: Session };

/** The console: sign-in (or the tab's session, resumed after a reload), then the pages the fragment names. */
export const App = () => {
  const [state, setState] = useState<State>(() => {
    const kept = remembered();
    return kept?.token !== undefined ? { phase: "resuming" } : kept === undefined ? { phase: "signed-out" } : { phase: "signed-out", user: kept.user };
  });
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  // After a page change, the page's heading takes the focus, so screen readers and keyboard users start there.
  useEffect(() => {
    main.current?.querySelector<HTMLElement>("h1")?.focus();
  }, [route.page, "alias" in route ? route.alias : undefined]);

  const signOut = (notice?: string): void => {
    const user = remembered()?.user;
    if (user !== undefined) remember({ user }); // the user name stays for the next sign-in, the token goes
    setState({ phase: "signed-out", ...(user === undefined ? {} : { user }), ...(notice === undefined ? {} : { notice }) });
  };
  // A reload: the service checks the tab's session token (GET /me); a refused one asks for the password again.
  useEffect(() => {
    const kept = remembered();
    if (state.phase !== "resuming" || kept?.token === undefined) return;
    const authorization = `Bearer ${kept.token}`;
    getJson(authorization, "/me", Me).then(
      (me) => setState({ phase: "signed-in", session: { ...me, authorization } }),
      () => signOut("Your session has ended: sign in again."),
    );
  }, []);
  useEffect(() => {
    const ended = (): void => signOut("Your session has ended: sign in again.");
    addEventListener(SESSION_ENDED, ended);
    return () => removeEventListener(SESSION_ENDED, ended);
  }, []);

  if (state.phase === "resuming") return <p aria-live="polite">Loading…</p>;
  if (state.phase === "signed-out") {
    return (
      <LoginPage
        user={state.user}
        notice={state.notice}
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
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href({ page: "connections" })}>
          sdwan-connections
        </a>
        <nav aria-label="Main">
          <a href={href({ page: "connections" })}>Connections</a>
        </nav>
        <span class="who">
          {session.user} ({session.role})
        </span>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main}>
        <Page route={route} session={session} />
      </main>
    </SessionContext.Provider>
  );
};
