import { AuthConfig, Me, Session } from "@sdwan-connections/core/wire";
import type { Notes } from "./schema-of.js";
import { commonErrors, flag, json, problem } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): How a client signs in and who it is: /auth/config, /me, /session (routes/auth-config.ts, me.ts, session.ts). */

export const sessionNotes: Notes = {
  "OidcClientConfig.issuer": { format: "uri" },
  "Me.user": "A local user's name, or the principal of a bearer token (oidc:NAME).",
  "Me.role": "null: a provider's user in no admin or viewer group (it may read nothing).",
  "Me.grants": "With grants=true only: what the principal may do beside its role.",
  "Session.token": { pattern: "^sdc_" },
};

export const sessionPaths = {
  "/auth/config": {
    get: {
      operationId: "authConfig",
      summary:
        "How a client may sign in, asked without credentials: the OpenID provider and the console's public client (authorization code + PKCE), or null for HTTP Basic only.",
      security: [],
      responses: {
        "200": json("The sign-in configuration.", AuthConfig),
      },
    },
  },
  "/me": {
    get: {
      operationId: "whoAmI",
      summary:
        "The user the credentials belong to and their role (admin or viewer): how a client checks a sign-in and learns what it may offer.",
      parameters: [
        flag(
          "grants",
          "Add `grants`: the grants to the principal or to one of its groups, as `{pattern, verb}` (SPEC §11).",
        ),
      ],
      responses: {
        "200": json("The signed-in user.", Me),
        ...commonErrors,
      },
    },
  },
  "/session": {
    get: {
      operationId: "startConsoleSession",
      summary:
        "A console session for the Basic credentials given: the user, their role and a token (`sdc_…`, 8 hours) sent as `Authorization: Bearer` instead of the password. Signed with a key derived from SDWAN_MASTER_KEY (so every instance sharing it accepts it), or a random key per process without one. Only Basic credentials start one: a session never extends itself.",
      security: [{ basic: [] }],
      responses: {
        "200": json("The session (never cached).", Session),
        ...commonErrors,
        "403": problem("Asked with a session token rather than a user name and password."),
        "404": problem("The service runs without authentication."),
      },
    },
  },
} as const;
