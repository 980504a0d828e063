export { freePort, startPostgres, type StartedPostgres } from "./postgres-container.js";
export { startOutageProxy, type OutageProxy } from "./outage-proxy.js";
