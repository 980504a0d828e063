import type { OidcConfig } from "@sdwan-connections/composition";
import { AuthConfig } from "@sdwan-connections/core/wire";
import type { Router } from "express";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { sendJson } from "../respond.js";

/**
 * SPEC §11: how the console may sign in, asked before it has credentials: the provider and the console's public
 * client (authorization code + PKCE, no secret), or `null` for HTTP Basic only (no provider, or no client for the console).
 * Its route is the API router's own (before the credentials), not a router of its own.
 */
export const authConfigRoutes = (router: Router, oidc: OidcConfig | undefined): void => {
  const answer = {
    oidc: oidc?.clientId === undefined ? null : { issuer: oidc.issuer, clientId: oidc.clientId, scopes: oidc.scopes },
  };
  router
    .route("/auth/config")
    .get(withFlags([], async (_req, res) => sendJson(res, 200, AuthConfig, answer)))
    .all(methodNotAllowed("GET, HEAD"));
};
