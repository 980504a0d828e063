import { useEffect, useState } from "preact/hooks";

/** The console's pages; the URL's fragment names one, so the service serves a single index.html. */
export type Route =
  | { readonly page: "connections" }
  | { readonly page: "add" }
  | { readonly page: "connection"; readonly alias: string }
  | { readonly page: "edit"; readonly alias: string }
  | { readonly page: "customers"; readonly alias: string };

const CONNECTION = /^#\/connections\/([^/]+)(?:\/(edit|customers))?$/;

export const parseRoute = (hash: string): Route => {
  if (hash === "#/add") return { page: "add" };
  const match = CONNECTION.exec(hash);
  if (match?.[1] === undefined) return { page: "connections" };
  const alias = decodeURIComponent(match[1]);
  return match[2] === "edit" ? { page: "edit", alias } : match[2] === "customers" ? { page: "customers", alias } : { page: "connection", alias };
};

export const href = (route: Route): string => {
  switch (route.page) {
    case "connections":
      return "#/";
    case "add":
      return "#/add";
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
