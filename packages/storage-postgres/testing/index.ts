export { freePort, startPostgres, type StartedPostgres } from "./postgres-container.js";
