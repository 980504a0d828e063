export { createApp, type AppOptions } from "./app.js";
export { createAuthenticator, parseBasic } from "./auth/authenticator.js";
export { generatedAdminFile, loadUsers, type Role, type Users } from "./auth/users.js";
export { type Problem } from "./errors.js";
export { BASE_PATH, BODY_LIMIT_BYTES, openApiDocument } from "./openapi.js";
export { startService, type RunningService, type ServiceOptions } from "./service.js";
export { HTTP_IDS } from "./di-identifiers.js";
