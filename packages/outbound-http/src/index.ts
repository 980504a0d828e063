export { createOutboundClient, type OutboundFetch, type OutboundOptions } from "./client.js";
export { admitsHost, fencedAgents, isHostListed } from "./fence.js";
export { backoffDelay, parseRetryAfter } from "./retry.js";
