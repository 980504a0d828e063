export { fencedLookup, isHostListed } from "./fence.js";
export { backoffDelay, parseRetryAfter } from "./retry.js";
export { admitsWebhookUrl, createWebhookSender, type WebhookSenderOptions } from "./webhook-sender.js";
