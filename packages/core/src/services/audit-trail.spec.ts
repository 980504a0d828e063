import * as TE from "fp-ts/lib/TaskEither.js";
import { describe, expect, it, vi } from "vitest";
import { createCore } from "./core.js";
import { orchestratorUnreachable, storageFailure, type DomainError } from "../domain/errors.js";
import { createInMemoryAuditLog } from "../adapters/memory-audit-log.js";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import {
  createInMemoryConnectionStore,
  createTestWorld,
  expectLeft,
  expectRight,
  TEST_KEYS,
} from "../../testing/index.js";
import type { Alias } from "../domain/codecs.js";
import { isAuditedChange } from "../domain/audit.js";
import { createInMemoryOrchestrator } from "../../testing/in-memory-orchestrator.js";

const ADMIN = { name: "admin", requestId: "req-1" };
const body = (overrides: Record<string, unknown> = {}) => ({
  alias: "Lab",
  orchestratorUrl: "https://vco.example.net",
  apiKey: TEST_KEYS.partner,
  ...overrides,
});

describe("the audit trail", () => {
  it("records each write with its actor, request, alias, the names of the fields given, validation and outcome; newest first", async () => {
    const { service } = createTestWorld();
    await expectRight(service.connections.add(body(), { by: ADMIN }));
    await expectRight(service.connections.add(body({ alias: "dry" }), { dryRun: true, by: ADMIN }));
    await expectRight(
      service.connections.update("lab", { apiKey: TEST_KEYS.customer }, { force: true, by: { name: "ops" } }),
    );
    await expectRight(
      service.connections.update("lab", { apiKey: TEST_KEYS.partner }, { dryRun: true, by: { name: "ops" } }),
    );
    await expectRight(service.connections.delete("LAB", { by: ADMIN }));
    await expectRight(service.connections.rotateMasterKey({ by: ADMIN }));
    const { entries } = await expectRight(service.audit.list({}));
    expect(
      entries.map(({ action, actor, requestId, alias, fields, forced, validation, outcome, failure }) => ({
        action,
        actor,
        requestId,
        alias,
        fields,
        forced,
        validation,
        outcome,
        failure,
      })),
    ).toEqual([
      {
        action: "rotate-master-key",
        actor: "admin",
        requestId: "req-1",
        alias: null,
        fields: [],
        forced: false,
        validation: "not-asked",
        outcome: "succeeded",
        failure: null,
      },
      {
        action: "delete",
        actor: "admin",
        requestId: "req-1",
        // A change records the alias as first given, whatever case it was named in (its event's subject).
        alias: "Lab",
        fields: [],
        forced: false,
        validation: "not-asked",
        outcome: "succeeded",
        failure: null,
      },
      {
        action: "dry-run",
        actor: "ops",
        requestId: null,
        alias: "lab",
        fields: ["apiKey"],
        forced: false,
        validation: "valid",
        outcome: "succeeded",
        failure: null,
      },
      {
        action: "update",
        actor: "ops",
        requestId: null,
        alias: "Lab",
        fields: ["apiKey"],
        forced: true,
        validation: "not-asked",
        outcome: "succeeded",
        failure: null,
      },
      {
        action: "dry-run",
        actor: "admin",
        requestId: "req-1",
        alias: "dry",
        fields: ["alias", "orchestratorUrl", "apiKey"],
        forced: false,
        validation: "valid",
        outcome: "succeeded",
        failure: null,
      },
      {
        action: "add",
        actor: "admin",
        requestId: "req-1",
        alias: "Lab",
        fields: ["alias", "orchestratorUrl", "apiKey"],
        forced: false,
        validation: "valid",
        outcome: "succeeded",
        failure: null,
      },
    ]);
  });

  it("records failed writes too, with the error's tag, invalid only for a key the orchestrator refused, and never a key or what stood in an alias's place", async () => {
    const { service, orchestrator } = createTestWorld();
    await expectLeft(service.connections.add(body({ apiKey: TEST_KEYS.refused }), { by: ADMIN }));
    orchestrator.failWith(TEST_KEYS.customer, orchestratorUnreachable("Could not connect to the orchestrator."));
    await expectLeft(service.connections.add(body({ alias: "Far", apiKey: TEST_KEYS.customer }), { by: ADMIN }));
    await expectLeft(
      service.connections.update("secret-looking key!", { apiKey: "another-secret-key" }, { by: ADMIN }),
    );
    await expectLeft(service.connections.delete("ghost"));
    const { entries } = await expectRight(service.audit.list({}));
    expect(
      entries.map(({ action, alias, validation, outcome, failure, actor }) => ({
        action,
        alias,
        validation,
        outcome,
        failure,
        actor,
      })),
    ).toEqual([
      {
        action: "delete",
        alias: "ghost",
        validation: "not-asked",
        outcome: "failed",
        failure: "NotFound",
        actor: "anonymous",
      },
      {
        action: "update",
        alias: null,
        validation: "not-asked",
        outcome: "failed",
        failure: "InvalidInput",
        actor: "admin",
      },
      // Asked, but no answer about the key: never said to be invalid.
      {
        action: "add",
        alias: "Far",
        validation: "not-asked",
        outcome: "failed",
        failure: "ValidationRefused",
        actor: "admin",
      },
      {
        action: "add",
        alias: "Lab",
        validation: "invalid",
        outcome: "failed",
        failure: "ValidationRefused",
        actor: "admin",
      },
    ]);
    const text = JSON.stringify(entries);
    for (const secret of [TEST_KEYS.refused, "another-secret-key", "secret-looking"])
      expect(text).not.toContain(secret);
  });

  it("selects by alias, time and page; refuses an unknown option without echoing it and names a bad one", async () => {
    const { service } = createTestWorld();
    await expectRight(service.connections.add(body(), { by: ADMIN }));
    await expectRight(service.connections.add(body({ alias: "other" }), { by: ADMIN }));
    expect((await expectRight(service.audit.list({ alias: "LAB" }))).entries.map((entry) => entry.alias)).toEqual([
      "Lab",
    ]);
    const first = await expectRight(service.audit.list({ limit: "1" }));
    expect(first.next).toBe(first.entries[0]?.id);
    const last = await expectRight(service.audit.list({ limit: "1", before: first.next }));
    expect(last.entries.map((entry) => entry.alias)).toEqual(["Lab"]);
    expect((await expectRight(service.audit.list({ before: last.next }))).next).toBeNull();
    expect(await expectRight(service.audit.list({ since: "2999-01-01T00:00:00Z" }))).toEqual({
      entries: [],
      next: null,
    });
    const unknown = await expectLeft(service.audit.list({ "pasted-secret": "x" }));
    expect(JSON.stringify(unknown)).not.toContain("pasted-secret");
    expect(await expectLeft(service.audit.list({ limit: "0", since: "yesterday" }))).toMatchObject({
      _tag: "InvalidInput",
      errors: [{ field: "query.since" }, { field: "query.limit" }],
    });
  });

  // Issue 36: the page was cut by the store, then filtered, and kept the store's cursor: a hidden alias had one.
  it("fills a page of what `readable` lets the reader see, and takes its cursor from that alone (SPEC §11)", async () => {
    const { service } = createTestWorld();
    const add = (alias: string) => expectRight(service.connections.add(body({ alias }), { force: true, by: ADMIN }));
    await add("lab-1");
    // More hidden changes than the trail reads of the store at once, between the two the reader sees.
    for (let index = 0; index < 600; index += 1) await add(`hidden-${index}`);
    await add("lab-2");
    for (let index = 600; index < 610; index += 1) await add(`hidden-${index}`);
    const readable = (alias: string) => alias.toLowerCase().startsWith("lab-");

    const hidden = await expectRight(service.audit.list({ alias: "HIDDEN-3", limit: "1" }, readable));
    const unknown = await expectRight(service.audit.list({ alias: "never-was", limit: "1" }, readable));
    expect(hidden).toEqual({ entries: [], next: null });
    expect(unknown).toEqual(hidden);

    const pages = [];
    for (let before: string | null | undefined; before !== null;) {
      const page = await expectRight(
        service.audit.list({ limit: "1", ...(before === undefined ? {} : { before }) }, readable),
      );
      pages.push(page);
      before = page.next;
    }
    expect(pages.map(({ entries }) => entries.map(({ alias }) => alias))).toEqual([["lab-2"], ["lab-1"], []]);
    // Each cursor is the id of the last entry shown: it says nothing of the hidden entries around it.
    expect(pages.map(({ next }) => next)).toEqual([pages[0]?.entries[0]?.id, pages[1]?.entries[0]?.id, null]);
    expect((await expectRight(service.audit.list({ limit: "5" }, readable))).next).toBeNull();
  });

  it("makes no change it cannot audit; an attempt whose entry cannot be recorded keeps its answer, and is reported", async () => {
    const failures: DomainError[] = [];
    const broken = { ...createInMemoryAuditLog(), record: () => TE.left(storageFailure("the audit store is down")) };
    const storage = createInMemoryStorage({ store: createInMemoryConnectionStore(broken) });
    const { repository } = storage;
    const service = createCore({
      storage,
      orchestrator: createInMemoryOrchestrator([]),
      onAuditFailure: vi.fn((error: DomainError) => void failures.push(error)),
    });
    // The change's entry could not be recorded: the change is refused and not made; its failure is an attempt.
    expect(await expectLeft(service.connections.add(body(), { force: true }))).toEqual(
      storageFailure("the audit store is down"),
    );
    expect((await expectLeft(repository.get("lab" as Alias)))._tag).toBe("NotFound");
    expect(await expectLeft(service.connections.delete("ghost"))).toMatchObject({ _tag: "NotFound" });
    expect(failures).toEqual([storageFailure("the audit store is down"), storageFailure("the audit store is down")]);
  });

  it("has every entry of a write in the store's log when the write answers, without waiting for anything else", async () => {
    const store = createInMemoryConnectionStore();
    const service = createCore({
      storage: createInMemoryStorage({ store }),
      orchestrator: createInMemoryOrchestrator([]),
    });
    const answered = [
      await service.connections.add(body(), { force: true, by: ADMIN })(),
      await service.connections.add(body(), { force: true, by: ADMIN })(),
      await service.connections.update(
        "lab",
        { orchestratorUrl: "https://moved.example.net/" },
        { force: true, by: ADMIN },
      )(),
      await service.connections.delete("lab", { by: ADMIN })(),
    ];
    expect(answered.map((result) => result._tag)).toEqual(["Right", "Left", "Right", "Right"]);
    const entries = await expectRight(store.audit.list({ limit: 10 }));
    expect(entries.map(({ action, outcome, failure }) => [action, outcome, failure])).toEqual([
      ["delete", "succeeded", null],
      ["update", "succeeded", null],
      ["add", "failed", "AlreadyExists"],
      ["add", "succeeded", null],
    ]);
  });

  // Regression: a PUT that changed nothing was audited as a change, and 300 of them pushed 5 real changes out.
  it("records an update that changes nothing as an unchanged attempt, which never pushes a change out", async () => {
    const retention = { maxEntries: 5, maxAttempts: 1000, maxAgeMs: 60 * 60_000 };
    const store = createInMemoryConnectionStore(createInMemoryAuditLog(retention));
    const inStore = createCore({
      storage: createInMemoryStorage({ store }),
      orchestrator: createInMemoryOrchestrator([]),
    });
    // The same over a store with the default retentions.
    const inService = createCore({
      storage: createInMemoryStorage(),
      orchestrator: createInMemoryOrchestrator([]),
    });
    for (const service of [inStore, inService]) {
      await expectRight(service.connections.add(body(), { force: true, by: ADMIN }));
      for (const url of [
        "https://a.example.net/",
        "https://b.example.net/",
        "https://c.example.net/",
        "https://d.example.net/",
      ]) {
        await expectRight(service.connections.update("lab", { orchestratorUrl: url }, { force: true, by: ADMIN }));
      }
      for (let i = 0; i < 300; i += 1) {
        expect(
          await expectRight(
            service.connections.update(
              "lab",
              { orchestratorUrl: "https://d.example.net/" },
              { force: true, by: ADMIN },
            ),
          ),
        ).toBe("unchanged");
      }
      const { entries } = await expectRight(service.audit.list({ limit: "1000" }));
      expect(entries.filter((entry) => entry.outcome === "unchanged")).toHaveLength(300);
      expect(entries.filter((entry) => isAuditedChange(entry)).map(({ action, outcome }) => [action, outcome])).toEqual(
        [...Array(4).fill(["update", "succeeded"]), ["add", "succeeded"]],
      );
    }
  });

  it("records a key check that did not match and a write refused to a viewer as refused attempts, with the actor and request", async () => {
    const { service } = createTestWorld();
    await expectRight(service.connections.add(body(), { by: ADMIN }));
    expect(
      await expectRight(
        service.connections.checkKey("lab", { apiKey: "a-guess" }, { by: { name: "mallory", requestId: "req-9" } }),
      ),
    ).toEqual({ matches: false });
    expect(
      await expectRight(service.connections.checkKey("lab", { apiKey: TEST_KEYS.partner }, { by: ADMIN })),
    ).toEqual({
      matches: true,
    });
    await service.audit.forbidden({ name: "viewer", requestId: "req-10" }, { method: "DELETE", alias: "lab" });
    await service.audit.forbidden({ name: "viewer", requestId: "req-11" }, { method: "POST", alias: "not an alias!" });
    const { entries } = await expectRight(service.audit.list({ limit: "3" }));
    expect(
      entries.map(({ action, actor, requestId, alias, fields, outcome, failure, detail }) => ({
        action,
        actor,
        requestId,
        alias,
        fields,
        outcome,
        failure,
        detail,
      })),
    ).toEqual([
      {
        action: "forbidden",
        actor: "viewer",
        requestId: "req-11",
        alias: null,
        fields: [],
        outcome: "failed",
        failure: "Forbidden",
        detail: "POST",
      },
      {
        action: "forbidden",
        actor: "viewer",
        requestId: "req-10",
        alias: "lab",
        fields: [],
        outcome: "failed",
        failure: "Forbidden",
        detail: "DELETE",
      },
      {
        action: "key-check",
        actor: "mallory",
        requestId: "req-9",
        alias: "lab",
        fields: ["apiKey"],
        outcome: "failed",
        failure: "KeyMismatch",
        detail: null,
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain("a-guess");
  });
});
