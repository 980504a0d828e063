import { useEffect, useState } from "preact/hooks";

/** The console's pages; the URL's fragment names one, so the service serves a single index.html. */
export type Route =
  | { readonly page: "connections" }
  | { readonly page: "add" }
  | { readonly page: "grants" }
  | { readonly page: "connection"; readonly alias: string }
  | { readonly page: "edit"; readonly alias: string }
  | { readonly page: "customers"; readonly alias: string };

const CONNECTION = /^#\/connections\/([^/]+)(?:\/(edit|customers))?$/;

/** The percent-decoded text, or undefined for a malformed escape (`%E0%A4%A`), which decodeURIComponent throws on. */
const decoded = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The page a fragment names; anything else (an unknown path, a malformed escape) is the connections page. */
export const parseRoute = (hash: string): Route => {
  if (hash === "#/add") return { page: "add" };
  if (hash === "#/grants") return { page: "grants" };
  const match = CONNECTION.exec(hash);
  const alias = match?.[1] === undefined ? undefined : decoded(match[1]);
  if (match === null || alias === undefined) return { page: "connections" };
  return match[2] === "edit"
    ? { page: "edit", alias }
    : match[2] === "customers"
      ? { page: "customers", alias }
      : { page: "connection", alias };
};

export const href = (route: Route): string => {
  switch (route.page) {
    case "connections":
      return "#/";
    case "add":
      return "#/add";
    case "grants":
      return "#/grants";
    case "connection":
      return `#/connections/${encodeURIComponent(route.alias)}`;
    case "edit":
      return `#/connections/${encodeURIComponent(route.alias)}/edit`;
    case "customers":
      return `#/connections/${encodeURIComponent(route.alias)}/customers`;
  }
};

export const navigate = (route: Route): void => {
  location.hash = href(route);
};

/** The current route, following the fragment. */
export const useRoute = (): Route => {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const follow = (): void => setHash(location.hash);
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, []);
  return parseRoute(hash);
};
