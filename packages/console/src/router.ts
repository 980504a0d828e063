import { useEffect, useState } from "preact/hooks";

/** The console's pages; the URL's fragment names one, so the service serves a single index.html. */
export type Route =
  | { readonly page: "connections" }
  | { readonly page: "add" }
  | { readonly page: "grants" }
  | { readonly page: "tokens" }
  | { readonly page: "webhooks" }
  | { readonly page: "webhook"; readonly id: string }
  | { readonly page: "connection"; readonly alias: string }
  | { readonly page: "edit"; readonly alias: string }
  | { readonly page: "customers"; readonly alias: string };

const CONNECTION = /^#\/connections\/([^/]+)(?:\/(edit|customers))?$/;
const WEBHOOK = /^#\/webhooks\/([^/]+)$/;
/** The pages a fixed fragment names. */
const FIXED = { "#/add": "add", "#/grants": "grants", "#/tokens": "tokens", "#/webhooks": "webhooks" } as const;

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
  if (Object.hasOwn(FIXED, hash)) return { page: FIXED[hash as keyof typeof FIXED] };
  const webhook = WEBHOOK.exec(hash)?.[1];
  const id = webhook === undefined ? undefined : decoded(webhook);
  if (id !== undefined) return { page: "webhook", id };
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
    case "tokens":
      return "#/tokens";
    case "webhooks":
      return "#/webhooks";
    case "webhook":
      return `#/webhooks/${encodeURIComponent(route.id)}`;
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
