export { createApp, type AppOptions } from "./app.js";
export { createAuthenticator, parseBasic, type AuthenticatedUser, type Authenticator } from "./auth/authenticator.js";
export { createLoginThrottle, type LoginThrottle } from "./auth/throttle.js";
export { ensureAdmin, generatedAdminFile, loadUsers, parseHtpasswd, type Role, type Users } from "./auth/users.js";
export { domainErrorToProblem, type Problem } from "./errors.js";
export { decodeFlags } from "./middleware/query-flags.js";
export { BASE_PATH, BODY_LIMIT_BYTES, openApiDocument } from "./openapi.js";
export { startService, type RunningService, type ServiceOptions } from "./service.js";
export { HTTP_IDS } from "./di-identifiers.js";
