import * as E from "fp-ts/lib/Either.js";
import { Webhook as Receiver } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import { healthChangeDetail } from "../domain/audit.js";
import type { Alias } from "../domain/codecs.js";
import type { HealthState } from "../domain/health.js";
import { decodeWebhookRequest, nextAfter, type WebhookAnswer, type WebhookRequest } from "../domain/webhook.js";
import { aConnection, anAuditEntry } from "../../testing/builders.js";
import { readOpennmsEvent } from "../../testing/opennms-schema.js";
import { expectRight as run } from "../../testing/run.js";
import { createWebhooks, type WebhookSender } from "./webhooks.js";
import { createCore } from "./core.js";
import { createInMemoryOrchestrator } from "../../testing/in-memory-orchestrator.js";

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
      // Empty is not "every event" (only left out is), and a URL the parser would repair or with a fragment is refused.
      { url: "https://example.com/hook", types: [] },
      { url: "https:example.com/hook" },
      { url: "https:/example.com/hook" },
      { url: "https://example.com/hook#part" },
    ])
      expect(E.isLeft(decodeWebhookRequest(bad)), JSON.stringify(bad)).toBe(true);
    // Kept as written.
    expect(decodeWebhookRequest({ url: "https://Example.com:443/a/../hook?x=1" })).toMatchObject(
      E.right({ url: "https://Example.com:443/a/../hook?x=1" }),
    );
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
    const audited: [string | undefined, string, string][] = [];
    const webhooks = createWebhooks({
      store: storage.webhooks,
      sender: receiver.sender,
      clock: { now: () => Date.now() + ahead },
      retrySchedule: schedule,
      pollMs: 5,
      random: () => 0.5,
      audited: async (by, action, webhook) => void audited.push([by?.name, action, webhook.id]),
    });
    const add = (alias: string) =>
      run(storage.repository.insert(aConnection({ alias }), anAuditEntry({ action: "add", alias: alias as Alias })));
    const created = await run(webhooks.create({ url: "https://receiver.example/hook" }, { name: "admin" }));
    receiver.useSecret(created.secret);
    return { receiver, webhooks, created, add, audited, advance: (ms: number) => (ahead += ms) };
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

  // Issue 36: 45 webhook creates and deletes left no audit entry.
  it("audits a create and a delete as their actor's, and a 410's disabling as the relay's; an unknown id nothing", async () => {
    const { webhooks, created, audited } = await setUp();
    expect(await run(webhooks.remove("no-such-id", { name: "admin" }))).toBe(false);
    expect(await run(webhooks.remove(created.id, { name: "ops" }))).toBe(true);
    expect(audited).toEqual([
      ["admin", "webhook-create", created.id],
      ["ops", "webhook-delete", created.id],
    ]);
  });

  it("disables a webhook whose receiver answers 410, audited as the relay's change", async () => {
    const { receiver, webhooks, add, created, audited } = await setUp([410]);
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
    expect(audited.filter(([, action]) => action === "webhook-disable")).toEqual([
      ["webhook-relay", "webhook-disable", created.id],
    ]);
  });

  it("pings a webhook at once, signed, and answers what the receiver said", async () => {
    const { receiver, webhooks, created } = await setUp([204]);
    expect(await run(webhooks.ping(created.id))).toMatchObject({ status: 204, error: null, kind: "cloudevents" });
    expect(receiver.received[0]?.body).toMatchObject({ type: "org.sdwan-connections.webhook.ping" });
    expect(await run(webhooks.ping("unknown"))).toBeUndefined();
  });
});

/**
 * OpenNMS's REST `POST /events` in memory: checks each request's signature with standardwebhooks (its body is XML,
 * so signed again and compared rather than `verify`'s JSON), its Basic credentials, and its body against event.xsd;
 * answers the next scripted status. Every request is kept, with the status it got and the timeout it was given.
 */
const anOpennms = (statuses: number[] = []) => {
  const received: {
    readonly id: string;
    readonly status: number;
    readonly timeoutMs: number;
    readonly event: ReturnType<typeof readOpennmsEvent>;
  }[] = [];
  let secret = "";
  let latencyMs = 0;
  let ahead = 0;
  const sender: WebhookSender = {
    send: async (request: WebhookRequest, timeoutMs: number) => {
      const headers = request.headers as Record<string, string>;
      const id = headers["webhook-id"]!;
      const signedAt = new Date(Number(headers["webhook-timestamp"]) * 1000);
      expect(headers["webhook-signature"]).toBe(new Receiver(secret).sign(id, signedAt, request.body));
      expect(headers["authorization"]).toBe(`Basic ${Buffer.from("opennms:pw").toString("base64")}`);
      expect(headers["content-type"]).toBe("application/xml");
      const event = readOpennmsEvent(request.body);
      const status = statuses.shift() ?? 202;
      ahead += latencyMs;
      received.push({ id, status, timeoutMs, event });
      return answered(status);
    },
  };
  return {
    sender,
    received,
    clock: { now: () => Date.now() + ahead },
    useSecret: (value: string) => (secret = value),
    /** How long each POST takes, on the clock. */
    takes: (ms: number) => (latencyMs = ms),
    advance: (ms: number) => (ahead += ms),
  };
};

describe("createWebhooks, kind opennms (several OpenNMS events per delivery)", () => {
  const UEI = (name: string) => `uei.opennms.org/sdwan/${name}`;
  const setUp = async (statuses?: number[]) => {
    const storage = createInMemoryStorage();
    const opennms = anOpennms(statuses);
    const webhooks = createWebhooks({
      store: storage.webhooks,
      sender: opennms.sender,
      clock: opennms.clock,
      retrySchedule: schedule,
      pollMs: 5,
      random: () => 0.5,
    });
    const created = await run(
      webhooks.create({
        url: "https://nms.example/opennms/rest/events",
        kind: "opennms",
        username: "opennms",
        password: "pw",
      }),
    );
    opennms.useSecret(created.secret);
    const add = (alias: string) =>
      run(storage.repository.insert(aConnection({ alias }), anAuditEntry({ action: "add", alias: alias as Alias })));
    const health = (alias: string, from: HealthState, to: HealthState) =>
      run(
        storage.audit.record(
          anAuditEntry({
            action: "health-change",
            alias: alias as Alias,
            detail: healthChangeDetail({ from, to, reason: `${to} now` }),
          }),
        ),
      );
    const remove = (alias: string) =>
      run(
        storage.repository.delete(alias as Alias, undefined, anAuditEntry({ action: "delete", alias: alias as Alias })),
      );
    const history = async () =>
      (await run(webhooks.deliveries(created.id, { limit: "100" })))!
        .map(({ eventId, status, attempts }) => ({ eventId, status, attempts }))
        .reverse();
    return { opennms, webhooks, add, health, remove, history };
  };

  it("settles an event OpenNMS gets nothing for (an add) delivered with no POST; the events after it go in order, a problem switch as its clear then its raise, a deletion as 5 clears", async () => {
    const { opennms, webhooks, add, health, remove, history } = await setUp();
    opennms.takes(100);
    await add("lab");
    await health("lab", "valid", "invalid");
    await health("lab", "invalid", "unreachable");
    await remove("lab");
    const relay = webhooks.createRelay();
    relay.start();
    await vi.waitFor(() => expect(opennms.received).toHaveLength(8), { timeout: 3_000, interval: 10 });
    await relay.stop();
    const alarms = ["connectionInvalid", "connectionUnreachable", "keyExpiring", "keyExpired", "keyRenewalFailed"].map(
      UEI,
    );
    expect(opennms.received.map(({ event }) => [event.uei, event.parms["problemUei"]])).toEqual([
      [UEI("connectionInvalid"), undefined],
      [UEI("connectionProblemChanged"), UEI("connectionInvalid")],
      [UEI("connectionUnreachable"), undefined],
      ...alarms.map((alarm) => [UEI("connectionDeleted"), alarm]),
    ]);
    // Each POST's webhook-id is its event's uuid: distinct, so a receiver deduping on it keeps them all.
    expect(opennms.received.map(({ id, event }) => id === event.uuid)).toEqual(Array(8).fill(true));
    expect(new Set(opennms.received.map(({ id }) => id)).size).toBe(8);

    const [added, invalid, switched, deleted, ...more] = await history();
    expect(more).toEqual([]);
    expect(added).toMatchObject({
      status: "delivered",
      attempts: [{ status: null, error: "no opennms form for this event: not sent", latencyMs: 0 }],
    });
    expect(opennms.received.map(({ id }) => id)).toEqual([
      invalid!.eventId,
      switched!.eventId,
      `${switched!.eventId}-2`,
      deleted!.eventId,
      `${deleted!.eventId}-2`,
      `${deleted!.eventId}-3`,
      `${deleted!.eventId}-4`,
      `${deleted!.eventId}-5`,
    ]);
    // One attempt per delivery, whatever its POSTs: the last one's status, their latencies summed.
    for (const [delivery, posts] of [
      [invalid, 1],
      [switched, 2],
      [deleted, 5],
    ] as const) {
      expect(delivery).toMatchObject({ status: "delivered", attempts: [{ status: 202, error: null }] });
      expect(delivery?.attempts[0]?.latencyMs).toBeGreaterThanOrEqual(100 * posts);
    }
    // One timeout for the attempt: each POST is given what is left of it.
    const [first, second] = opennms.received.filter(({ id }) => id.startsWith(deleted!.eventId));
    expect(first!.timeoutMs).toBeLessThanOrEqual(10_000);
    expect(second!.timeoutMs).toBeLessThanOrEqual(first!.timeoutMs - 100);
  });

  it("retries a delivery whose 2nd POST fails from its first, posting none after the failed one, the events behind it waiting; then delivers them all in order", async () => {
    const { opennms, webhooks, add, health, remove, history } = await setUp([202, 503]);
    await add("lab");
    await remove("lab");
    await health("edge", "invalid", "unreachable");
    const relay = webhooks.createRelay();
    relay.start();
    await vi.waitFor(() => expect(opennms.received).toHaveLength(2), { timeout: 3_000, interval: 10 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(opennms.received).toHaveLength(2);
    const [, waiting, behind] = await history();
    expect(waiting).toMatchObject({ status: "pending", attempts: [{ status: 503, error: null }] });
    expect(behind).toMatchObject({ status: "pending", attempts: [] });
    opennms.advance(10_001);
    await vi.waitFor(() => expect(opennms.received).toHaveLength(9), { timeout: 3_000, interval: 10 });
    await relay.stop();
    const deleted = (status: number) => (n: number) => [
      n === 1 ? waiting!.eventId : `${waiting!.eventId}-${n}`,
      status,
      UEI("connectionDeleted"),
    ];
    expect(opennms.received.map(({ id, status, event }) => [id, status, event.uei])).toEqual([
      deleted(202)(1),
      deleted(503)(2),
      ...[1, 2, 3, 4, 5].map(deleted(202)),
      [behind!.eventId, 202, UEI("connectionProblemChanged")],
      [`${behind!.eventId}-2`, 202, UEI("connectionUnreachable")],
    ]);
    expect((await history()).map(({ status, attempts }) => [status, attempts.map((tried) => tried.status)])).toEqual([
      ["delivered", [null]],
      ["delivered", [503, 202]],
      ["delivered", [202]],
    ]);
  });
});

// Regression (issue 36, finding 6): the orchestratorUrl parm was read from the store at delivery, so every event
// delivered after a delete had none. Now it is the connection's URL as its entry kept it.
describe("createWebhooks, kind opennms: the parms come from the event", () => {
  it("tells the orchestrator URL of a connection found invalid, warned about and deleted, all delivered after the delete", async () => {
    const storage = createInMemoryStorage();
    const url = "https://vco.example.net/";
    const service = createCore({
      storage,
      orchestrator: createInMemoryOrchestrator([]),
      clock: { now: () => Date.now() },
    });
    const opennms = anOpennms();
    const webhooks = createWebhooks({
      store: storage.webhooks,
      sender: opennms.sender,
      clock: opennms.clock,
      pollMs: 5,
    });
    const created = await run(
      webhooks.create({
        url: "https://nms.example/opennms/rest/events",
        kind: "opennms",
        username: "opennms",
        password: "pw",
      }),
    );
    opennms.useSecret(created.secret);
    const expiresAt = new Date(Date.now() - 60_000).toISOString();
    await run(
      service.connections.add(
        { alias: "lab", orchestratorUrl: url, apiKey: "refused", apiKeyExpiresAt: expiresAt },
        { force: true },
      ),
    );
    await service.connections.validate("lab")();
    await service.health.keyExpiry.scanNow();
    await run(service.audit.list({})); // the background entries (health, key warning) recorded
    await run(service.connections.delete("lab"));
    const relay = webhooks.createRelay();
    relay.start();
    await vi.waitFor(() => expect(opennms.received).toHaveLength(7), { timeout: 3_000, interval: 10 });
    await relay.stop();
    expect(
      opennms.received.map(({ event }) => [
        event.uei?.replace("uei.opennms.org/sdwan/", ""),
        event.parms["orchestratorUrl"],
      ]),
    ).toEqual([["connectionInvalid", url], ["keyExpired", url], ...Array(5).fill(["connectionDeleted", url])]);
  });
});

describe("the relay", () => {
  const subjectOf = (request: WebhookRequest) => (JSON.parse(request.body) as { subject: string }).subject;
  const anAdd = (storage: ReturnType<typeof createInMemoryStorage>) => (alias: string) =>
    run(storage.repository.insert(aConnection({ alias }), anAuditEntry({ action: "add", alias: alias as Alias })));

  it("exactly one relay per delivery when a run outlasts its lease: an attempt begins only while the lease covers it, the rest is claimed again (renewed), never taken over by another live relay", async () => {
    const storage = createInMemoryStorage();
    // Each request takes 6 s of the relays' clock: 10 of them outlast a lease (30 s) several times over.
    let time = 0;
    const received: string[] = [];
    const sender: WebhookSender = {
      send: async (request) => {
        received.push(request.headers["webhook-id"] as string);
        await new Promise((resolve) => setTimeout(resolve, 2));
        time += 6_000;
        return answered(204);
      },
    };
    const instance = () =>
      createWebhooks({ store: storage.webhooks, sender, clock: { now: () => time }, pollMs: 1, random: () => 0.5 });
    await run(instance().create({ url: "https://receiver.example/hook" }));
    const aliases = Array.from({ length: 10 }, (_, index) => `lease-${index}`);
    for (const alias of aliases) await anAdd(storage)(alias);
    time = Date.now();
    const relays = [instance().createRelay(), instance().createRelay()];
    for (const relay of relays) relay.start();
    await vi.waitFor(() => expect(new Set(received).size).toBe(aliases.length), { timeout: 10_000, interval: 5 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all(relays.map((relay) => relay.stop()));
    expect(received).toHaveLength(aliases.length);
  });

  it("a receiver that hangs delays only its own webhook: another webhook's deliveries all arrive while its request is open", async () => {
    const storage = createInMemoryStorage();
    const open: string[] = [];
    const release: (() => void)[] = [];
    let hanging = true;
    const healthy: string[] = [];
    const sender: WebhookSender = {
      send: async (request) => {
        if (!request.url.includes("hang")) {
          healthy.push(subjectOf(request));
          return answered(204);
        }
        open.push(subjectOf(request));
        if (hanging) await new Promise<void>((resolve) => release.push(resolve));
        return answered(204);
      },
    };
    const webhooks = createWebhooks({
      store: storage.webhooks,
      sender,
      clock: { now: () => Date.now() },
      pollMs: 5,
      trail: storage.audit,
    });
    await run(webhooks.create({ url: "https://hang.example/hook" }));
    await run(webhooks.create({ url: "https://healthy.example/hook" }));
    const relay = webhooks.createRelay();
    relay.start();
    await anAdd(storage)("first");
    await vi.waitFor(() => expect([open, healthy]).toEqual([["first"], ["first"]]), { timeout: 3_000, interval: 5 });
    const later = ["second", "third", "fourth", "fifth"];
    for (const alias of later) await anAdd(storage)(alias);
    await vi.waitFor(() => expect(healthy).toEqual(["first", ...later]), { timeout: 3_000, interval: 5 });
    // The hanging receiver still holds its first request: nothing of its webhook went on meanwhile.
    expect(open).toEqual(["first"]);
    hanging = false;
    for (const done of release) done();
    await vi.waitFor(() => expect(open).toEqual(["first", ...later]), { timeout: 3_000, interval: 5 });
    await relay.stop();
  });

  it("is woken by commits, not by its poll: a change is delivered with the poll an hour away, and one committed while a look is under way is looked for again at once", async () => {
    const storage = createInMemoryStorage();
    const received: string[] = [];
    const sender: WebhookSender = {
      send: async (request) => {
        received.push(subjectOf(request));
        return answered(204);
      },
    };
    // Claims stay open until `gate` opens (a look under way), once `gate` is set.
    let gate: Promise<void> | undefined;
    let claims = 0;
    const store = {
      ...storage.webhooks,
      claim:
        (...args: Parameters<typeof storage.webhooks.claim>) =>
        async () => {
          const claimed = await storage.webhooks.claim(...args)();
          claims += 1;
          await gate;
          return claimed;
        },
    };
    const webhooks = createWebhooks({
      store,
      sender,
      clock: { now: () => Date.now() },
      pollMs: 3_600_000,
      trail: storage.audit,
    });
    await run(webhooks.create({ url: "https://receiver.example/hook" }));
    let open = () => undefined as void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const relay = webhooks.createRelay();
    relay.start();
    // The first look's claim found nothing; the change lands while that look is still under way.
    await vi.waitFor(() => expect(claims).toBe(1), { timeout: 3_000, interval: 5 });
    await anAdd(storage)("during-a-look");
    open();
    gate = undefined;
    await vi.waitFor(() => expect(received).toEqual(["during-a-look"]), { timeout: 3_000, interval: 5 });
    await anAdd(storage)("idle");
    await vi.waitFor(() => expect(received).toEqual(["during-a-look", "idle"]), { timeout: 3_000, interval: 5 });
    await relay.stop();
  });

  it("an idle relay looks once per commit, never missing one: a commit told as a look ends is looked for at once (not at the poll, an hour away), and a delivery is not followed by a look of its own (it held the outbox while the next commit landed)", async () => {
    const storage = createInMemoryStorage();
    const received: string[] = [];
    const sender: WebhookSender = {
      send: async (request) => {
        received.push(subjectOf(request));
        return answered(204);
      },
    };
    let claims = 0;
    const store = {
      ...storage.webhooks,
      claim: (...args: Parameters<typeof storage.webhooks.claim>) => {
        claims += 1;
        return storage.webhooks.claim(...args);
      },
    };
    const webhooks = createWebhooks({
      store,
      sender,
      clock: { now: () => Date.now() },
      pollMs: 3_600_000,
      trail: storage.audit,
    });
    const created = await run(webhooks.create({ url: "https://receiver.example/hook" }));
    const relay = webhooks.createRelay();
    relay.start();
    await vi.waitFor(() => expect(claims).toBe(1), { timeout: 3_000, interval: 5 });
    for (const [index, alias] of ["first", "second", "third"].entries()) {
      await anAdd(storage)(alias);
      // Settled: the worker has ended (the look its end would make is already asked for).
      await vi.waitFor(
        async () =>
          expect((await run(webhooks.deliveries(created.id, { status: "delivered" })))?.length).toBe(index + 1),
        { timeout: 3_000, interval: 5 },
      );
    }
    await relay.stop();
    expect(received).toEqual(["first", "second", "third"]);
    expect(claims).toBe(4);
  });
});
