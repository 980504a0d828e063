import { useEffect, useRef, useState } from "preact/hooks";
import { ConnectionPage } from "./pages/connection.js";
import { ConnectionForm } from "./pages/connection-form.js";
import { ConnectionsPage } from "./pages/connections.js";
import { CustomersPage } from "./pages/customers.js";
import { LoginPage } from "./pages/login.js";
import { href, useRoute, type Route } from "./router.js";
import { isAdmin, SessionContext, type Session } from "./session.js";

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

/** The console: sign-in, then the pages the fragment names. */
export const App = () => {
  const [session, setSession] = useState<Session | undefined>(undefined);
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  // After a page change, the page's heading takes the focus, so screen readers and keyboard users start there.
  useEffect(() => {
    main.current?.querySelector<HTMLElement>("h1")?.focus();
  }, [route.page, "alias" in route ? route.alias : undefined]);

  if (session === undefined) return <LoginPage onSignIn={setSession} />;
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
        <button type="button" onClick={() => setSession(undefined)}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main}>
        <Page route={route} session={session} />
      </main>
    </SessionContext.Provider>
  );
};
