import { cp, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Storage } from "@sdwan-connections/core";
import { expectRight } from "@sdwan-connections/core/testing";
import { describe, expect, it } from "vitest";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { keyringOf, temporaryDirectory } from "./support.js";

// Written by the stores of commit 6fc14d9 (before their codecs became core's), with `keyringOf()`'s master key: two
// grants, two tokens (one renewed), two webhooks (secrets sealed), a delivered, a leased and a pending delivery, the
// trail's two lines, a health history with a claim and a key warning, and a renewal with its new key sealed. The
// answers are what that code read back.
const FIXTURE = fileURLToPath(new URL("fixtures/stored-files/", import.meta.url));
const at = (seconds: string) => new Date(`2026-11-20T10:00:${seconds}.000Z`);

const answersOf = async ({ grants, serviceTokens, webhooks, health, renewals, audit }: Storage) => ({
  grants: await expectRight(grants.list()),
  tokens: await expectRight(serviceTokens.list()),
  found: await expectRight(serviceTokens.find("a".repeat(64), at("12"))),
  webhooks: await expectRight(webhooks.list()),
  secrets: await expectRight(webhooks.secrets("w1")),
  deliveries: [await expectRight(webhooks.deliveries("w1", 10)), await expectRight(webhooks.deliveries("w2", 10))],
  health: await expectRight(health.list()),
  renewals: (await expectRight(renewals.list())).map((record) => ({
    ...record,
    intent: record.intent && { ...record.intent, newKey: record.intent.newKey?.reveal() },
  })),
  audit: await expectRight(audit.list({ limit: 100 })),
});

describe("files an earlier version wrote", () => {
  it("read back as that version read them, in every file of the data directory", async () => {
    await using directory = await temporaryDirectory();
    await cp(`${FIXTURE}directory`, directory.path, { recursive: true });
    const retention = { maxEntries: 100, maxAttempts: 100, maxAgeMs: 100 * 365 * 86_400_000 };
    const storage = await expectRight(
      openLowdbStorage({ dataDir: directory.path, keyring: keyringOf(), lockStaleMs: 2000, auditRetention: retention }),
    );
    try {
      const answers: unknown = JSON.parse(JSON.stringify(await answersOf(storage)));
      expect(answers).toEqual(JSON.parse(await readFile(`${FIXTURE}answers.json`, "utf8")));
    } finally {
      await storage.close();
    }
  });
});
