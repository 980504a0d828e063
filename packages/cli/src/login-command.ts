import type { CommandSpec } from "./command.js";

/** `login`: what help, completion and the parser know of it (its work, in login.ts, is loaded when it runs). */
export const LOGIN_COMMAND: CommandSpec = {
  name: "login",
  summary: "sign in to a service with its OpenID provider (device authorization): a context that refreshes itself",
  args: [],
  options: {
    server: { type: "string", value: "url", description: "the service (required)" },
    context: { type: "string", value: "name", description: "the context to keep the sign-in in (default: the host)" },
    "client-id": {
      type: "string",
      value: "id",
      description: "the provider's client to sign in with (default: the service's, from GET /auth/config)",
    },
  },
  notes:
    "The service names its provider and client (GET /auth/config); the CLI asks the provider for a device code (RFC 8628) and says where to approve it. The refresh token is kept in a file of its own (0600) beside the contexts, never printed; each command then gets a fresh access token with it.",
};
