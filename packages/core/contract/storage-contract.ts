import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it, vi } from "vitest";
import {
  type Alias,
  type AliasPattern,
  type ConnectionChangeNotice,
  type Storage,
  type Subject,
} from "../src/index.js";
import { aConnection, anAuditEntry } from "../testing/builders.js";
import { expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";

export interface StorageContractOptions extends StoreUnderTest {
  /** Opens the store under test (as `open…Storage` does); every opening is over the same data, as after a restart. */
  open(): Promise<Storage>;
}

const lab = "lab" as Alias;

/**
 * The behaviour of a store's whole face, beyond each part's own contract: its parts are one store (a write's
 * audit entry is in its audit log), what it keeps outlives a close, and every part answers once opened.
 */
export const describeStorageContract = (name: string, options: StorageContractOptions): void => {
  describe(`${name} satisfies the Storage contract`, () => {
    useStoreUnderTest(options);

    it("keeps a write and its audit entry, both in the store, across a close and a reopen", async () => {
      const entry = anAuditEntry({ action: "add", alias: lab, fields: ["orchestratorUrl", "apiKey"] });
      const first = await options.open();
      await run(first.repository.insert(aConnection({ alias: "lab", apiKey: "the-key" }), entry));
      await first.close();
      const second = await options.open();
      try {
        expect((await run(second.repository.get(lab))).apiKey.reveal()).toBe("the-key");
        expect((await run(second.audit.list({ alias: lab, limit: 10 }))).map((one) => one.action)).toEqual(["add"]);
      } finally {
        await second.close();
      }
    });

    it("tells the audit log's subscribers a write's entry once the write answered, never one of a write that failed", async () => {
      const storage = await options.open();
      try {
        const heard: string[] = [];
        const unsubscribe = await run(
          storage.audit.subscribe((entry) => heard.push(`${entry.action} ${entry.alias ?? ""}`)),
        );
        await run(
          storage.repository.insert(aConnection({ alias: "lab" }), anAuditEntry({ action: "add", alias: lab })),
        );
        // Refused (the alias is taken): its entry is never recorded, so never told.
        expect(
          E.isLeft(
            await storage.repository.insert(
              aConnection({ alias: "LAB" }),
              anAuditEntry({ action: "add", alias: "LAB" as Alias }),
            )(),
          ),
        ).toBe(true);
        await run(storage.repository.delete(lab, undefined, anAuditEntry({ action: "delete", alias: lab })));
        await vi.waitFor(() => expect(heard).toEqual(["add lab", "delete lab"]), { timeout: 3_000, interval: 20 });
        unsubscribe();
      } finally {
        await storage.close();
      }
    });

    it("fingerprints a connection's key the same after a reopen, and the same key on another connection differently", async () => {
      const key = aConnection({ apiKey: "the-key" }).apiKey;
      const first = await options.open();
      const before = first.fingerprints.fingerprint(lab, key);
      expect(first.fingerprints.fingerprint("other" as Alias, key)).not.toBe(before);
      await first.close();
      const second = await options.open();
      try {
        expect(second.fingerprints.fingerprint(lab, key)).toBe(before);
      } finally {
        await second.close();
      }
    });

    it("keeps service tokens across a close and a reopen", async () => {
      const token = {
        id: "00000000-0000-4000-8000-000000000001",
        name: "ci",
        role: "admin" as const,
        lifetimeDays: 1,
        expiresAt: new Date(Date.now() + 86_400_000),
        lastUsedAt: null,
        createdBy: "admin",
        createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
      };
      const first = await options.open();
      await run(first.serviceTokens.create(token, "the-hash"));
      await first.close();
      const second = await options.open();
      try {
        expect(await run(second.serviceTokens.find("the-hash", new Date()))).toEqual(token);
      } finally {
        await second.close();
      }
    });

    it("keeps grants across a close and a reopen", async () => {
      const grant = {
        id: "00000000-0000-4000-9000-000000000001",
        subject: "group:emea" as Subject,
        pattern: "emea-*" as AliasPattern,
        verb: "use" as const,
      };
      const first = await options.open();
      await run(first.grants.add(grant));
      await first.close();
      const second = await options.open();
      try {
        expect(await run(second.grants.list())).toEqual([grant]);
      } finally {
        await second.close();
      }
    });

    it("answers from every part once opened: ping, changes, fingerprints, health, failures", async () => {
      const storage = await options.open();
      try {
        await run(storage.repository.ping());
        const heard: ConnectionChangeNotice[] = [];
        const unsubscribe = storage.changes.subscribe((notice) => heard.push(notice));
        await storage.changes.publish(lab);
        unsubscribe();
        expect(heard).toEqual([lab]);
        const key = aConnection({ apiKey: "the-key" }).apiKey;
        expect(storage.fingerprints.fingerprint(lab, key)).toBe(storage.fingerprints.fingerprint(lab, key));
        expect(storage.fingerprints.fingerprint(lab, key)).not.toContain("the-key");
        expect(await run(storage.health.list())).toEqual([]);
        expect((await run(storage.failures.add("203.0.113.9"))).count).toBe(1);
      } finally {
        await storage.close();
      }
    });
  });
};
