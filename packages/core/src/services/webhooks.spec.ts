import * as E from "fp-ts/lib/Either.js";
import { Webhook as Receiver } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import type { Alias } from "../domain/codecs.js";
import { decodeWebhookRequest, nextAfter, type WebhookAnswer, type WebhookRequest } from "../domain/webhook.js";
import { aConnection, anAuditEntry } from "../../testing/builders.js";
import { expectRight as run } from "../../testing/run.js";
import { createWebhooks, type WebhookSender } from "./webhooks.js";

const schedule = [10, 60];
const at = new Date("2026-01-01T00:00:00.000Z");
const answered = (status: number, retryAfterMs: number | null = null): WebhookAnswer => ({
  _tag: "answered",
  status,
  retryAfterMs,
});

describe("nextAfter (what follows an attempt)", () => {
  it("delivers on 2xx, disables on 410, retries network errors, 408, 429 and 5xx with ±20 % jitter, else dead", () => {
    expect(nextAfter(answered(204), 1, at, schedule, () => 0.5)).toEqual({ status: "delivered" });
    expect(nextAfter(answered(410), 1, at, schedule, () => 0.5)).toEqual({ status: "gone" });
    expect(nextAfter(answered(400), 1, at, schedule, () => 0.5)).toEqual({ status: "dead" });
    for (const answer of [answered(408), answered(429), answered(503), { _tag: "failed", error: "x" } as const]) {
      expect(nextAfter(answer, 1, at, schedule, () => 0)).toEqual({
        status: "pending",
        at: new Date(at.getTime() + 8_000),
      });
      expect(nextAfter(answer, 2, at, schedule, () => 1)).toEqual({
        status: "pending",
        at: new Date(at.getTime() + 72_000),
      });
      // The schedule is over.
      expect(nextAfter(answer, 3, at, schedule, () => 0.5)).toEqual({ status: "dead" });
    }
  });

  it("waits as long as a 429's Retry-After asks when it is longer than the schedule's wait", () => {
    expect(nextAfter(answered(429, 30_000), 1, at, schedule, () => 0.5)).toEqual({
      status: "pending",
      at: new Date(at.getTime() + 30_000),
    });
  });
});

describe("decodeWebhookRequest", () => {
  it("defaults types to every event and kind to cloudevents; wants credentials for opennms only; refuses unknown fields", () => {
    expect(decodeWebhookRequest({ url: "https://example.com/hook" })).toEqual(
      E.right({ url: "https://example.com/hook", types: ["*"], kind: "cloudevents", credentials: null }),
    );
    expect(
      decodeWebhookRequest({ url: "https://nms/opennms/rest/events", kind: "opennms", username: "u", password: "p" }),
    ).toEqual(
      E.right({
        url: "https://nms/opennms/rest/events",
        types: ["*"],
        kind: "opennms",
        credentials: { username: "u", password: "p" },
      }),
    );
    for (const bad of [
      { url: "https://nms/opennms/rest/events", kind: "opennms" },
      { url: "https://example.com/hook", username: "u", password: "p" },
      { url: "ftp://example.com/hook" },
      { url: "https://example.com/hook", types: ["connection.nothing"] },
      { url: "https://example.com/hook", secret: "mine" },
    ])
      expect(E.isLeft(decodeWebhookRequest(bad))).toBe(true);
  });
});

/** A receiver in memory: verifies each request as a Standard Webhooks receiver does, answers the next scripted status. */
const aReceiver = (statuses: number[] = []) => {
  const received: { readonly id: string; readonly body: unknown }[] = [];
  let secret = "";
  const sender: WebhookSender = {
    send: async (request: WebhookRequest) => {
      const body = new Receiver(secret).verify(request.body, request.headers as Record<string, string>);
      received.push({ id: request.headers["webhook-id"] as string, body });
      return answered(statuses.shift() ?? 200);
    },
  };
  return { sender, received, useSecret: (value: string) => (secret = value) };
};

describe("createWebhooks", () => {
  const setUp = async (statuses?: number[]) => {
    const storage = createInMemoryStorage();
    const receiver = aReceiver(statuses);
    // Real time, moved on by `advance` (past a retry's wait).
    let ahead = 0;
    const webhooks = createWebhooks({
      store: storage.webhooks,
      sender: receiver.sender,
      clock: { now: () => Date.now() + ahead },
      retrySchedule: schedule,
      pollMs: 5,
      random: () => 0.5,
    });
    const add = (alias: string) =>
      run(storage.repository.insert(aConnection({ alias }), anAuditEntry({ action: "add", alias: alias as Alias })));
    const created = await run(webhooks.create({ url: "https://receiver.example/hook" }));
    receiver.useSecret(created.secret);
    return { receiver, webhooks, created, add, advance: (ms: number) => (ahead += ms) };
  };

  it("delivers every event once, in order, signed so that standardwebhooks verifies it, the secret shown at creation only", async () => {
    const { receiver, webhooks, add, created } = await setUp();
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(JSON.stringify(await run(webhooks.list()))).not.toContain(created.secret);
    for (const alias of ["a", "b", "c"]) await add(alias);
    const relay = webhooks.createRelay();
    relay.start();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(3), { timeout: 3_000, interval: 10 });
    await relay.stop();
    expect(receiver.received.map(({ body }) => (body as { subject: string }).subject)).toEqual(["a", "b", "c"]);
    const history = await run(webhooks.deliveries(created.id, { limit: "10" }));
    expect(history?.map((one) => [one.status, one.attempts.map((tried) => tried.status)])).toEqual([
      ["delivered", [200]],
      ["delivered", [200]],
      ["delivered", [200]],
    ]);
  });

  it("retries a 503 after the schedule's wait, the events behind it waiting, then goes on in order", async () => {
    const { receiver, add, advance, webhooks } = await setUp([503]);
    await add("a");
    await add("b");
    const relay = webhooks.createRelay();
    relay.start();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 3_000, interval: 10 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.received).toHaveLength(1);
    advance(10_001);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(3), { timeout: 3_000, interval: 10 });
    await relay.stop();
    expect(receiver.received.map(({ id }) => id)[0]).toBe(receiver.received.map(({ id }) => id)[1]);
  });

  it("disables a webhook whose receiver answers 410", async () => {
    const { receiver, webhooks, add, created } = await setUp([410]);
    await add("a");
    await add("b");
    const relay = webhooks.createRelay();
    relay.start();
    await vi.waitFor(async () => expect((await run(webhooks.get(created.id)))?.disabledAt).not.toBeNull(), {
      timeout: 3_000,
      interval: 10,
    });
    await relay.stop();
    expect(receiver.received).toHaveLength(1);
  });

  it("pings a webhook at once, signed, and answers what the receiver said", async () => {
    const { receiver, webhooks, created } = await setUp([204]);
    expect(await run(webhooks.ping(created.id))).toMatchObject({ status: 204, error: null, kind: "cloudevents" });
    expect(receiver.received[0]?.body).toMatchObject({ type: "org.sdwan-connections.webhook.ping" });
    expect(await run(webhooks.ping("unknown"))).toBeUndefined();
  });
});
