import { randomBytes, randomUUID } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Alias, Storage } from "@sdwan-connections/core";
import { aConnection, anAuditEntry, aWebhook, expectRight } from "@sdwan-connections/core/testing";
import { describe, expect, it } from "vitest";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { DELIVERIES_FILE, WEBHOOKS_FILE } from "../src/webhooks-file.js";
import { keyringOf, temporaryDirectory } from "./support.js";

const signing = { secret: `whsec_${randomBytes(32).toString("base64")}`, credentials: null };
const add = (storage: Storage, alias: string) =>
  expectRight(
    storage.repository.insert(aConnection({ alias }), anAuditEntry({ action: "add", alias: alias as Alias })),
  );
const claimAll = async (storage: Storage) =>
  (await expectRight(storage.webhooks.claim("relay", new Date(), new Date(Date.now() + 30_000), 1000))).map(
    ({ event }) => event.subject,
  );

describe("webhooks.json and webhook-deliveries.json", () => {
  it("keeps secrets sealed, and a master-key rotation re-seals them so that the new key alone opens them", async () => {
    await using directory = await temporaryDirectory();
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const open = (key: Buffer, previous: Buffer[] = []) =>
      expectRight(openLowdbStorage({ dataDir: directory.path, keyring: keyringOf(key, previous), lockStaleMs: 2000 }));
    const webhook = {
      id: randomUUID(),
      url: "https://nms.example/opennms/rest/events",
      types: ["*"],
      kind: "opennms" as const,
      createdAt: new Date(),
      disabledAt: null,
    };
    const secrets = {
      secret: `whsec_${randomBytes(32).toString("base64")}`,
      credentials: { username: "u", password: "the-password" },
    };
    const first = await open(oldKey);
    await expectRight(first.webhooks.create(webhook, secrets));
    await first.close();
    const file = await readFile(join(directory.path, WEBHOOKS_FILE), "utf8");
    expect(file).not.toContain(secrets.secret.slice("whsec_".length));
    expect(file).not.toContain("the-password");

    const rotating = await open(newKey, [oldKey]);
    expect(await expectRight(rotating.webhooks.resealSecrets())).toEqual({ rotated: 1, total: 1 });
    await rotating.close();
    const rotated = await open(newKey);
    try {
      expect(await expectRight(rotated.webhooks.secrets(webhook.id))).toEqual(secrets);
    } finally {
      await rotated.close();
    }
  });

  it("keeps the trail's outbox lines no relay has read through a rewrite that prunes, then lets them go", async () => {
    await using directory = await temporaryDirectory();
    const retention = { maxEntries: 3, maxAttempts: 3, maxAgeMs: 86_400_000 };
    // Each opening prunes the trail at its first append.
    const open = () =>
      expectRight(
        openLowdbStorage({
          dataDir: directory.path,
          keyring: keyringOf(),
          lockStaleMs: 2000,
          auditRetention: retention,
        }),
      );
    const aliases = Array.from({ length: 8 }, (_, index) => `pruned-${index}`);
    const first = await open();
    await expectRight(first.webhooks.create(aWebhook(), signing));
    for (const alias of aliases.slice(0, 7)) await add(first, alias);
    await first.close();
    const trail = async () => (await readFile(join(directory.path, "audit.jsonl"), "utf8")).trim().split("\n");
    const second = await open();
    await add(second, aliases[7]!);
    expect(await expectRight(second.audit.list({ limit: 100 }))).toHaveLength(3);
    await second.close(); // the rewrite done
    expect(await trail()).toHaveLength(8);
    const third = await open();
    expect(await claimAll(third)).toEqual(aliases);
    await third.close();
    const fourth = await open();
    await add(fourth, "after");
    await fourth.close();
    const lines = await trail();
    expect(lines.length).toBeLessThanOrEqual(4);
  });

  it("takes the deliveries from webhooks.json, where they were kept before they had a file of their own", async () => {
    await using directory = await temporaryDirectory();
    const open = () =>
      expectRight(openLowdbStorage({ dataDir: directory.path, keyring: keyringOf(), lockStaleMs: 2000 }));
    const webhook = aWebhook();
    const first = await open();
    await expectRight(first.webhooks.create(webhook, signing));
    await add(first, "one");
    await add(first, "two");
    const [one] = await expectRight(first.webhooks.claim("relay", new Date(), new Date(Date.now() + 30_000), 1));
    await expectRight(
      first.webhooks.settle(
        one!.delivery.id,
        "relay",
        { at: new Date(), status: 204, error: null, latencyMs: 1 },
        { status: "delivered" },
      ),
    );
    await first.close();
    const webhooksPath = join(directory.path, WEBHOOKS_FILE);
    const deliveriesPath = join(directory.path, DELIVERIES_FILE);
    const legacy = {
      ...JSON.parse(await readFile(webhooksPath, "utf8")),
      ...JSON.parse(await readFile(deliveriesPath, "utf8")),
    };
    await writeFile(webhooksPath, JSON.stringify(legacy));
    await rm(deliveriesPath);

    const second = await open();
    try {
      expect(await claimAll(second)).toEqual(["two"]);
      expect((await expectRight(second.webhooks.deliveries(webhook.id, 10))).map((one) => one.status)).toEqual([
        "pending",
        "delivered",
      ]);
      await expectRight(second.webhooks.create(aWebhook(), signing));
      expect(Object.keys(JSON.parse(await readFile(webhooksPath, "utf8")))).toEqual(["webhooks"]);
    } finally {
      await second.close();
    }
  });

  it("writes a settlement by itself within a quarter of a second when no claim comes (what a crash can make a relay send again)", async () => {
    await using directory = await temporaryDirectory();
    const storage = await expectRight(
      openLowdbStorage({ dataDir: directory.path, keyring: keyringOf(), lockStaleMs: 2000 }),
    );
    try {
      await expectRight(storage.webhooks.create(aWebhook(), signing));
      await add(storage, "one");
      const [claimed] = await expectRight(
        storage.webhooks.claim("relay", new Date(), new Date(Date.now() + 30_000), 1),
      );
      const attempt = { at: new Date(), status: 204, error: null, latencyMs: 1 };
      await expectRight(storage.webhooks.settle(claimed!.delivery.id, "relay", attempt, { status: "delivered" }));
      const onDisk = async () =>
        JSON.parse(await readFile(join(directory.path, DELIVERIES_FILE), "utf8")).deliveries.map(
          (delivery: { status: string }) => delivery.status,
        );
      expect(await onDisk()).toEqual(["pending"]);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await onDisk()).toEqual(["delivered"]);
    } finally {
      await storage.close();
    }
  });
});
