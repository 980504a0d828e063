import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import {
  WEBHOOK_HISTORY,
  type Alias,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type Storage,
  type Webhook,
  type WebhookSecrets,
} from "../src/index.js";
import { aConnection, anAuditEntry, aWebhook } from "../testing/builders.js";
import { expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";

export interface WebhookStoreContractOptions extends StoreUnderTest {
  /** Opens the store under test (its webhooks and the audit log that writes their outbox); every opening shares one store. */
  open(): Promise<Storage>;
  /**
   * What the store persisted, as text (its files, its rows), to check that the secrets are sealed. A store that
   * persists nothing outside its process (the in-memory one) has none: that check is skipped.
   */
  peek?(): Promise<string>;
}

const secrets: WebhookSecrets = { secret: "whsec_c2VjcmV0LWJ5dGVzLW9mLXRoZS13ZWJob29r", credentials: null };
const anAttempt = (status: number | null, at = new Date()): DeliveryAttempt => ({
  at,
  status,
  error: status === null ? "ECONNREFUSED" : null,
  latencyMs: 3,
});
const later = (ms: number) => new Date(Date.now() + ms);

/** The behaviour every WebhookStore adapter must show, with its store's audit log writing the outbox. */
export const describeWebhookStoreContract = (name: string, options: WebhookStoreContractOptions): void => {
  describe(`${name} satisfies the WebhookStore contract`, () => {
    useStoreUnderTest(options);

    const withStorage = async (test: (storage: Storage) => Promise<void>) => {
      const storage = await options.open();
      try {
        await test(storage);
      } finally {
        await storage.close();
      }
    };
    const add = (storage: Storage, alias: string) =>
      run(storage.repository.insert(aConnection({ alias }), anAuditEntry({ action: "add", alias: alias as Alias })));

    it("keeps webhooks and their secrets (opened as given), lists them oldest first, removes them", () =>
      withStorage(async (storage) => {
        const first = aWebhook();
        const second = aWebhook({
          kind: "opennms",
          types: ["connection.health.*"],
          createdAt: new Date("2026-01-02T00:00:00.000Z"),
        });
        await run(storage.webhooks.create(first, secrets));
        await run(storage.webhooks.create(second, { ...secrets, credentials: { username: "admin", password: "pw" } }));
        expect(await run(storage.webhooks.list())).toEqual([first, second]);
        expect(await run(storage.webhooks.get(second.id))).toEqual(second);
        expect(await run(storage.webhooks.secrets(second.id))).toEqual({
          ...secrets,
          credentials: { username: "admin", password: "pw" },
        });
        expect(await run(storage.webhooks.remove(first.id))).toBe(true);
        expect(await run(storage.webhooks.remove(first.id))).toBe(false);
        expect(await run(storage.webhooks.get(first.id))).toBeUndefined();
      }));

    it.runIf(options.peek !== undefined)(
      "persists a webhook's secrets sealed: neither the signing secret nor the credentials in plain text, base64 or hex",
      () =>
        withStorage(async (storage) => {
          const webhook = aWebhook({ kind: "opennms" });
          const password = "receiver-password-of-the-webhook";
          await run(storage.webhooks.create(webhook, { ...secrets, credentials: { username: "admin", password } }));
          await add(storage, "lab");
          await run(storage.webhooks.resealSecrets());
          const persisted = (await options.peek?.()) ?? "";
          expect(persisted).toContain(webhook.id);
          const keyBytes = secrets.secret.slice("whsec_".length);
          for (const plain of [secrets.secret, keyBytes, password])
            for (const encoding of ["utf8", "base64", "base64url", "hex"] as const)
              expect(persisted).not.toContain(encoding === "utf8" ? plain : Buffer.from(plain).toString(encoding));
        }),
    );

    it("answers an id not in the form its ids have (a UUID in lower case) as an unknown id, never a failure", () =>
      withStorage(async (storage) => {
        const webhook = aWebhook();
        await run(storage.webhooks.create(webhook, secrets));
        await add(storage, "lab");
        for (const id of ["not-a-uuid", "", webhook.id.toUpperCase(), `{${webhook.id}}`, "' or ''='"]) {
          expect(await run(storage.webhooks.get(id))).toBeUndefined();
          expect(await run(storage.webhooks.secrets(id))).toBeUndefined();
          expect(await run(storage.webhooks.deliveries(id, 10))).toEqual([]);
          expect(await run(storage.webhooks.remove(id))).toBe(false);
        }
        expect(await run(storage.webhooks.get(webhook.id))).toEqual(webhook);
        expect(await run(storage.webhooks.deliveries(webhook.id, 10))).toHaveLength(1);
      }));

    it("writes, with a change's audit entry, one pending delivery per enabled webhook that wants its event; none for what is not an event", () =>
      withStorage(async (storage) => {
        const every = aWebhook();
        const deletes = aWebhook({ types: ["connection.deleted"] });
        await run(storage.webhooks.create(every, secrets));
        await run(storage.webhooks.create(deletes, secrets));
        await add(storage, "lab");
        // Refused (the alias is taken) and a failed attempt: no event, no delivery.
        expect(
          E.isLeft(
            await storage.repository.insert(
              aConnection({ alias: "LAB" }),
              anAuditEntry({ action: "add", alias: "LAB" as Alias }),
            )(),
          ),
        ).toBe(true);
        await run(storage.audit.record(anAuditEntry({ action: "update", outcome: "failed" })));
        await run(
          storage.repository.delete(
            "lab" as Alias,
            undefined,
            anAuditEntry({ action: "delete", alias: "lab" as Alias }),
          ),
        );
        const toEvery = await run(storage.webhooks.deliveries(every.id, 10));
        expect(toEvery.map((one) => one.status)).toEqual(["pending", "pending"]);
        const toDeletes = await run(storage.webhooks.deliveries(deletes.id, 10));
        expect(toDeletes).toHaveLength(1);
        expect(toDeletes[0]?.eventId).toBe(toEvery[0]?.eventId);
      }));

    it("hands each webhook a run of its oldest pending deliveries, in order, to one owner at a time; a retry waiting holds those after it", () =>
      withStorage(async (storage) => {
        const webhook = aWebhook();
        await run(storage.webhooks.create(webhook, secrets));
        for (const alias of ["one", "two", "three"]) await add(storage, alias);
        expect(
          (await run(storage.webhooks.claim("a", new Date(), later(30_000), 1))).map((one) => one.event.subject),
        ).toEqual(["one"]);
        const first = await run(storage.webhooks.claim("a", new Date(), later(30_000), 10));
        expect(first.map((one) => one.event.subject)).toEqual(["one", "two", "three"]);
        expect(first[0]?.secrets).toEqual(secrets);
        // Held by "a": another owner gets nothing of this webhook.
        expect(await run(storage.webhooks.claim("b", new Date(), later(30_000), 10))).toEqual([]);
        await run(storage.webhooks.settle(first[0]!.delivery.id, "a", anAttempt(204), { status: "delivered" }));
        // A retry later: the webhook waits (nothing behind it overtakes), then it is due again.
        await run(
          storage.webhooks.settle(first[1]!.delivery.id, "a", anAttempt(503), { status: "pending", at: later(60_000) }),
        );
        expect(await run(storage.webhooks.claim("a", new Date(), later(30_000), 10))).toEqual([]);
        const again = await run(storage.webhooks.claim("b", later(61_000), later(90_000), 10));
        expect(again.map((one) => [one.event.subject, one.delivery.attempts.map((tried) => tried.status)])).toEqual([
          ["two", [503]],
          ["three", []],
        ]);
        const history = await run(storage.webhooks.deliveries(webhook.id, 2));
        expect(history.map((one) => one.status)).toEqual(["pending", "pending"]);
        expect((await run(storage.webhooks.deliveries(webhook.id, 10))).at(-1)?.status).toBe("delivered");
      }));

    it("takes over a claim whose lease ran out (its owner died); the late owner's settle then changes nothing", () =>
      withStorage(async (storage) => {
        await run(storage.webhooks.create(aWebhook(), secrets));
        await add(storage, "lab");
        const [claimed] = await run(storage.webhooks.claim("dead", new Date(), later(1_000), 10));
        const [taken] = await run(storage.webhooks.claim("alive", later(2_000), later(30_000), 10));
        expect(taken?.delivery.id).toBe(claimed?.delivery.id);
        await run(storage.webhooks.settle(claimed!.delivery.id, "dead", anAttempt(500), { status: "dead" }));
        await run(storage.webhooks.settle(taken!.delivery.id, "alive", anAttempt(200), { status: "delivered" }));
        const [delivery] = await run(storage.webhooks.deliveries(taken!.webhook.id, 1));
        expect([delivery?.status, delivery?.attempts.map((one) => one.status)]).toEqual(["delivered", [200]]);
      }));

    it("disables a webhook whose receiver is gone (410): its delivery dead, nothing more claimed or written for it", () =>
      withStorage(async (storage) => {
        const webhook = aWebhook();
        await run(storage.webhooks.create(webhook, secrets));
        await add(storage, "one");
        await add(storage, "two");
        const [claimed] = await run(storage.webhooks.claim("a", new Date(), later(30_000), 10));
        const goneAt = new Date();
        await run(storage.webhooks.settle(claimed!.delivery.id, "a", anAttempt(410, goneAt), { status: "gone" }));
        expect((await run(storage.webhooks.get(webhook.id)))?.disabledAt).toEqual(goneAt);
        expect(await run(storage.webhooks.claim("a", later(1), later(30_000), 10))).toEqual([]);
        await add(storage, "three");
        expect((await run(storage.webhooks.deliveries(webhook.id, 10))).map((one) => one.status)).toEqual([
          "pending",
          "dead",
        ]);
      }));

    it("keeps per webhook the newest settled deliveries of its history, and every pending one", () =>
      withStorage(async (storage) => {
        const settled = aWebhook();
        const other = aWebhook();
        await run(storage.webhooks.create(settled, secrets));
        await run(storage.webhooks.create(other, secrets));
        const beyond = 5;
        for (let change = 0; change < WEBHOOK_HISTORY + beyond + 2; change += 1)
          await run(storage.audit.record(anAuditEntry()));
        const everyClaimed = await run(storage.webhooks.claim("a", new Date(), later(30_000), 1_000));
        const claimedOf = (webhook: Webhook) =>
          everyClaimed.filter((one) => one.webhook.id === webhook.id).map((one) => one.delivery);
        const claimed = claimedOf(settled);
        // The last two stay pending; of the others, alternately delivered and dead.
        for (const [index, delivery] of claimed.slice(0, -2).entries())
          await run(
            storage.webhooks.settle(delivery.id, "a", anAttempt(index % 2 === 0 ? 204 : 400), {
              status: index % 2 === 0 ? "delivered" : "dead",
            }),
          );
        // The other webhook's oldest three settle too: counted in its own history, not pushed out by the first's.
        for (const delivery of claimedOf(other).slice(0, 3))
          await run(storage.webhooks.settle(delivery.id, "a", anAttempt(204), { status: "delivered" }));
        const kept = await run(storage.webhooks.deliveries(settled.id, 1_000));
        expect(kept.map((one) => one.id)).toEqual(
          claimed
            .slice(beyond)
            .map((one) => one.id)
            .reverse(),
        );
        expect(kept.filter((one) => one.status !== "pending")).toHaveLength(WEBHOOK_HISTORY);
        // The other webhook: its three settled and its pending ones, more than a history, all kept.
        expect((await run(storage.webhooks.deliveries(other.id, 1_000))).map((one) => one.id)).toEqual(
          claimedOf(other)
            .map((one) => one.id)
            .reverse(),
        );
      }));

    it("turns every event into one delivery, in order, when two openings of the store write and claim by turns", async () => {
      const [one, other] = [await options.open(), await options.open()];
      try {
        const webhook = aWebhook();
        await run(one.webhooks.create(webhook, secrets));
        const aliases = Array.from({ length: 24 }, (_, index) => `turn-${index}`);
        const claimed: string[] = [];
        const claimAndSettle = async (storage: Storage, owner: string) => {
          for (const { delivery, event } of await run(storage.webhooks.claim(owner, new Date(), later(30_000), 5))) {
            claimed.push(event.subject);
            await run(storage.webhooks.settle(delivery.id, owner, anAttempt(204), { status: "delivered" }));
          }
        };
        for (const [index, alias] of aliases.entries()) {
          await add(index % 3 === 0 ? other : one, alias);
          if (index % 4 === 3) await claimAndSettle(index % 8 === 3 ? one : other, index % 8 === 3 ? "one" : "other");
        }
        for (let round = 0; round < 10 && claimed.length < aliases.length; round += 1) {
          await claimAndSettle(other, "other");
          await claimAndSettle(one, "one");
        }
        expect(claimed).toEqual(aliases);
      } finally {
        await one.close();
        await other.close();
      }
    });

    it("lists only the deliveries of a status when asked", () =>
      withStorage(async (storage) => {
        const webhook = aWebhook();
        await run(storage.webhooks.create(webhook, secrets));
        for (const alias of ["one", "two", "three"]) await add(storage, alias);
        const [first, second] = await run(storage.webhooks.claim("a", new Date(), later(30_000), 2));
        await run(storage.webhooks.settle(first!.delivery.id, "a", anAttempt(204), { status: "delivered" }));
        await run(storage.webhooks.settle(second!.delivery.id, "a", anAttempt(400), { status: "dead" }));
        const ids = async (status?: "pending" | "delivered" | "dead") =>
          (await run(storage.webhooks.deliveries(webhook.id, 10, status))).map((one) => one.id);
        expect(await ids("dead")).toEqual([second!.delivery.id]);
        expect(await ids("delivered")).toEqual([first!.delivery.id]);
        expect(await ids("pending")).toHaveLength(1);
        expect(await ids()).toHaveLength(3);
      }));

    it("redelivers a settled delivery as a new pending one of the same event (read from the trail after a reopen); never one still pending", async () => {
      const webhook = aWebhook();
      let dead: ClaimedDelivery | undefined;
      await withStorage(async (storage) => {
        await run(storage.webhooks.create(webhook, secrets));
        await add(storage, "lab");
        await add(storage, "later");
        const [first, second] = await run(storage.webhooks.claim("a", new Date(), later(30_000), 10));
        dead = first;
        await run(storage.webhooks.settle(first!.delivery.id, "a", anAttempt(400), { status: "dead" }));
        // Still pending: refused, as is an unknown delivery or webhook (of any form).
        expect(await run(storage.webhooks.redeliver(webhook.id, second!.delivery.id, new Date()))).toEqual({
          _tag: "pending",
        });
        for (const [webhookId, deliveryId] of [
          [webhook.id, aWebhook().id],
          [aWebhook().id, first!.delivery.id],
          ["not-a-uuid", first!.delivery.id],
          [webhook.id, "' or ''='"],
        ] as const)
          expect(await run(storage.webhooks.redeliver(webhookId, deliveryId, new Date()))).toEqual({ _tag: "unknown" });
        await run(storage.webhooks.settle(second!.delivery.id, "a", anAttempt(204), { status: "delivered" }));
      });
      // Reopened: a settled delivery's event is read where the store keeps it (the embedded store: the trail).
      await withStorage(async (storage) => {
        const at = new Date();
        const redelivery = await run(storage.webhooks.redeliver(webhook.id, dead!.delivery.id, at));
        expect(redelivery._tag).toBe("queued");
        const queued = redelivery._tag === "queued" ? redelivery.delivery : undefined;
        expect(queued).toMatchObject({ webhookId: webhook.id, eventId: dead!.delivery.eventId, status: "pending" });
        expect(queued?.id).not.toBe(dead!.delivery.id);
        // Its redelivery pending, the dead one is not queued twice.
        expect(await run(storage.webhooks.redeliver(webhook.id, dead!.delivery.id, at))).toEqual({ _tag: "pending" });
        const [claimed, ...rest] = await run(storage.webhooks.claim("b", later(1), later(30_000), 10));
        expect(rest).toEqual([]);
        expect(claimed?.delivery.id).toBe(queued?.id);
        expect(claimed?.event).toEqual(dead!.event);
        expect((await run(storage.webhooks.deliveries(webhook.id, 10))).map((one) => one.status)).toEqual([
          "pending",
          "delivered",
          "dead",
        ]);
      });
    });

    it("queues one redelivery when many are asked at once", () =>
      withStorage(async (storage) => {
        const webhook = aWebhook();
        await run(storage.webhooks.create(webhook, secrets));
        await add(storage, "lab");
        const [claimed] = await run(storage.webhooks.claim("a", new Date(), later(30_000), 10));
        await run(storage.webhooks.settle(claimed!.delivery.id, "a", anAttempt(204), { status: "delivered" }));
        const answers = await Promise.all(
          Array.from({ length: 20 }, () =>
            run(storage.webhooks.redeliver(webhook.id, claimed!.delivery.id, new Date())),
          ),
        );
        expect(answers.filter((one) => one._tag === "queued")).toHaveLength(1);
        expect(answers.filter((one) => one._tag === "pending")).toHaveLength(19);
        expect(await run(storage.webhooks.deliveries(webhook.id, 10, "pending"))).toHaveLength(1);
      }));

    it("leaves the webhooks named busy alone: their deliveries wait, the others' are claimed", () =>
      withStorage(async (storage) => {
        const [busy, free] = [aWebhook(), aWebhook()];
        for (const webhook of [busy, free]) await run(storage.webhooks.create(webhook, secrets));
        await add(storage, "lab");
        const claimed = await run(storage.webhooks.claim("a", new Date(), later(30_000), 10, [busy.id]));
        expect(claimed.map((one) => one.webhook.id)).toEqual([free.id]);
        const after = await run(storage.webhooks.claim("a", new Date(), later(30_000), 10));
        expect(after.map((one) => one.webhook.id).sort()).toEqual([busy.id, free.id].sort());
      }));

    it("never leases one delivery to two owners claiming at once over two openings of the store", async () => {
      const openings = [await options.open(), await options.open()];
      try {
        const leased: string[] = [];
        for (let round = 0; round < 12; round += 1) {
          const webhook = aWebhook();
          await run(openings[0]!.webhooks.create(webhook, secrets));
          await add(openings[round % 2]!, `race-${round}`);
          const claims = await Promise.all(
            Array.from({ length: 8 }, (_, owner) =>
              run(openings[owner % 2]!.webhooks.claim(`owner-${round}-${owner}`, new Date(), later(30_000), 10)),
            ),
          );
          const ofRound = claims.flat().filter((one) => one.webhook.id === webhook.id);
          expect(ofRound).toHaveLength(1);
          leased.push(...claims.flat().map((one) => one.delivery.id));
        }
        expect(new Set(leased).size).toBe(leased.length);
      } finally {
        for (const storage of openings) await storage.close();
      }
    });

    it("keeps webhooks and pending deliveries across a close and a reopen", async () => {
      const webhook = aWebhook();
      await withStorage(async (storage) => {
        await run(storage.webhooks.create(webhook, secrets));
        await add(storage, "lab");
      });
      await withStorage(async (storage) => {
        expect(await run(storage.webhooks.get(webhook.id))).toEqual(webhook);
        const claimed = await run(storage.webhooks.claim("a", new Date(), later(30_000), 10));
        expect(claimed.map((one) => [one.event.type, one.event.subject])).toEqual([
          ["org.sdwan-connections.connection.added", "lab"],
        ]);
      });
    });
  });
};
