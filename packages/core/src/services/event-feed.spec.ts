import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { describe, expect, it } from "vitest";
import { anAuditEntry, createTestWorld, expectLeft, expectRight, TEST_KEYS } from "../../testing/index.js";
import { createInMemoryAuditLog } from "../adapters/memory-audit-log.js";
import { AUDIT_ACTIONS, type AuditEntry } from "../domain/audit.js";
import type { Alias } from "../domain/codecs.js";
import { orchestratorUnreachable } from "../domain/errors.js";
import { CloudEventCodec, decodeEventsQuery, eventOf, type CloudEvent } from "../domain/events.js";
import { keyExpiryDetail } from "../domain/key-expiry.js";
import { keyRenewalDetail } from "../domain/key-renewal.js";
import { followEvents, type FeedItem } from "./event-feed.js";

const body = (overrides: Record<string, unknown> = {}) => ({
  alias: "Lab",
  orchestratorUrl: "https://vco.example.net",
  apiKey: TEST_KEYS.partner,
  ...overrides,
});
const query = (raw: Record<string, unknown> = {}) => expectRight(async () => decodeEventsQuery(raw));
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const eventsOf = (items: readonly FeedItem[]) => items.flatMap((item) => (item._tag === "event" ? [item.event] : []));

describe("events: the audit trail as CloudEvents", () => {
  it("makes an event of each change that happened and each health change, nothing of attempts, dry runs, key checks or rotations", () => {
    const details: Partial<Record<AuditEntry["action"], string>> = {
      "health-change": "valid → unreachable: timed out",
      "key-expiring": keyExpiryDetail({
        expiresAt: new Date("2027-01-01T00:00:00Z"),
        daysLeft: 7,
        source: "declared",
        threshold: 7,
      }),
      "key-expired": keyExpiryDetail({
        expiresAt: new Date("2027-01-01T00:00:00Z"),
        daysLeft: 0,
        source: "token",
        threshold: 0,
      }),
      "key-renew": keyRenewalDetail({ method: "create", expiresAt: new Date("2027-11-01T00:00:00Z") }),
    };
    const events = AUDIT_ACTIONS.map((action) => ({
      action,
      event: eventOf(anAuditEntry({ action, detail: details[action] ?? null, version: 7 })),
    }));
    expect(events.filter(({ event }) => O.isSome(event)).map(({ action }) => action)).toEqual([
      "add",
      "update",
      "delete",
      "health-change",
      "key-expiring",
      "key-expired",
      "key-renew",
      "key-renewal-failed",
    ]);
    for (const outcome of ["failed", "unchanged"] as const)
      expect(
        eventOf(anAuditEntry({ action: "update", outcome, failure: outcome === "failed" ? "NotFound" : null })),
      ).toEqual(O.none);
    const entry = anAuditEntry({
      action: "update",
      alias: "Lab" as Alias,
      fields: ["apiKey"],
      forced: true,
      version: 7,
      actor: "ops",
    });
    expect(eventOf(entry)).toEqual(
      O.some({
        specversion: "1.0",
        id: entry.id,
        source: "/sdwan-connections",
        type: "org.sdwan-connections.connection.updated",
        subject: "Lab",
        time: entry.at.toISOString(),
        datacontenttype: "application/json",
        data: { version: 7, fields: ["apiKey"], actor: "ops", forced: true },
      }),
    );
  });

  it("reads a health change's states and reason back, and every event is what the one codec accepts, never a key", () => {
    const entry = anAuditEntry({
      action: "health-change",
      detail: "valid → invalid: The orchestrator refused the API key.",
      validation: "not-asked",
    });
    const event = O.toUndefined(eventOf(entry)) as CloudEvent;
    expect(event.data).toEqual({
      from: "valid",
      to: "invalid",
      reason: "The orchestrator refused the API key.",
      checkedAt: entry.at.toISOString(),
    });
    expect(CloudEventCodec.is(event)).toBe(true);
    expect(E.isRight(CloudEventCodec.decode(JSON.parse(JSON.stringify(event))))).toBe(true);
    expect(eventOf(anAuditEntry({ action: "health-change", detail: "unknown → valid" }))).toMatchObject(
      O.some({ data: { from: "unknown", to: "valid", reason: null } }),
    );
  });

  it("makes a key-expiry warning a connection.key.expiring or .expired event with its date, days left and source (SPEC §9, §10)", () => {
    const expiresAt = new Date("2027-01-01T00:00:00Z");
    const expiring = anAuditEntry({
      action: "key-expiring",
      alias: "Lab" as Alias,
      actor: "key-expiry",
      detail: keyExpiryDetail({ expiresAt, daysLeft: 7, source: "orchestrator", threshold: 7 }),
    });
    const event = O.toUndefined(eventOf(expiring)) as CloudEvent;
    expect(event).toMatchObject({
      type: "org.sdwan-connections.connection.key.expiring",
      subject: "Lab",
      data: { expiresAt: "2027-01-01T00:00:00.000Z", daysLeft: 7, source: "orchestrator" },
    });
    expect(E.isRight(CloudEventCodec.decode(JSON.parse(JSON.stringify(event))))).toBe(true);
    const expired = anAuditEntry({
      action: "key-expired",
      alias: "Lab" as Alias,
      detail: keyExpiryDetail({ expiresAt, daysLeft: 0, source: "declared", threshold: 0 }),
    });
    expect(eventOf(expired)).toMatchObject(
      O.some({ type: "org.sdwan-connections.connection.key.expired", data: { daysLeft: 0, source: "declared" } }),
    );
    expect(
      eventOf(anAuditEntry({ action: "key-expired", alias: "Lab" as Alias, detail: "not a warning's detail" })),
    ).toEqual(O.none);
  });

  it("decodes the query: type patterns naming known types, an alias glob in any case, an event id; anything else refused by name", async () => {
    const decoded = await query({
      types: "connection.health.*,org.sdwan-connections.connection.added",
      alias: "lab-*",
    });
    const event = (type: string, subject: string) => ({ type: `org.sdwan-connections.${type}`, subject }) as CloudEvent;
    const { selectsEvent } = await import("../domain/events.js");
    expect(selectsEvent(decoded)(event("connection.health.changed", "LAB-1"))).toBe(true);
    expect(selectsEvent(decoded)(event("connection.added", "lab-2"))).toBe(true);
    expect(selectsEvent(decoded)(event("connection.deleted", "lab-2"))).toBe(false);
    expect(selectsEvent(decoded)(event("connection.added", "prod"))).toBe(false);
    for (const bad of [
      { types: "conection.added" },
      { types: "" },
      { alias: "lab?" },
      { lastEventId: "42" },
      { types: ["connection.added", "x"] },
      { secret: "pasted" },
    ]) {
      const error = await expectLeft(async () => decodeEventsQuery(bad));
      expect(error._tag).toBe("InvalidInput");
      expect(JSON.stringify(error)).not.toContain("pasted");
    }
  });
});

describe("following events", () => {
  it("hands on the service's changes and a health change a validation finds, once, filtered", async () => {
    const { service, orchestrator } = createTestWorld();
    const items: FeedItem[] = [];
    const stop = await expectRight(service.events.follow({}, (item) => void items.push(item)));
    const healthOnly: FeedItem[] = [];
    const stopHealth = await expectRight(
      service.events.follow({ types: "connection.health.*", alias: "L*" }, (item) => void healthOnly.push(item)),
    );
    await expectRight(service.connections.add(body()));
    await expectRight(service.connections.update("lab", { apiKey: TEST_KEYS.customer }));
    await expectRight(service.connections.add(body({ alias: "dry" }), { dryRun: true }));
    await expectRight(service.connections.validate("lab"));
    orchestrator.failWith(TEST_KEYS.customer, orchestratorUnreachable("timed out"));
    // Two validations find the same new state: one event.
    await expectRight(service.connections.validate("lab"));
    await expectRight(service.connections.validate("lab"));
    await expectRight(service.connections.delete("lab"));
    await service.dispose();
    const types = eventsOf(items).map(
      (event) => `${event.type.replace("org.sdwan-connections.", "")} ${event.subject}`,
    );
    expect(types).toEqual([
      "connection.added Lab",
      "connection.updated Lab",
      "connection.health.changed Lab",
      "connection.health.changed Lab",
      "connection.deleted Lab",
    ]);
    expect(eventsOf(healthOnly).map((event) => event.data)).toMatchObject([
      { from: "unknown", to: "valid" },
      { from: "valid", to: "unreachable", reason: "timed out" },
    ]);
    const versions = eventsOf(items).filter(
      (event) =>
        event.type.endsWith("connection.added") ||
        event.type.endsWith("connection.updated") ||
        event.type.endsWith("deleted"),
    );
    const [added, updated, deleted] = versions.map((event) => (event.data as { version: number }).version);
    expect(added).toBeLessThan(updated as number);
    expect(deleted).toBe(updated);
    expect(JSON.stringify(items)).not.toContain(TEST_KEYS.partner);
    stop();
    stopHealth();
  });

  it("replays what came after the last event id, then goes live, with no gap and no repeat at the seam", async () => {
    const audit = createInMemoryAuditLog();
    const entries = Array.from({ length: 1200 }, (_, i) =>
      anAuditEntry({ at: new Date(Date.now() - 60_000 + i), action: "add", alias: `c${i}` as Alias }),
    );
    for (const entry of entries.slice(0, 1100)) await expectRight(audit.record(entry));
    const items: FeedItem[] = [];
    const following = followEvents(audit)(
      await query({ lastEventId: entries[50]?.id }),
      (item) => void items.push(item),
    )();
    // Written while the replay runs: heard live, handed on after it, once.
    for (const entry of entries.slice(1100)) await expectRight(audit.record(entry));
    const stop = await following;
    await tick();
    expect(E.isRight(stop)).toBe(true);
    expect(eventsOf(items).map((event) => event.id)).toEqual(entries.slice(51).map((entry) => entry.id));
  });

  // Issue 36: the reader's `?alias=` glob ran on every event, hidden ones included, before the grants filter.
  it("decides what the reader may read before its own globs: a hidden connection's event never meets them", async () => {
    const audit = createInMemoryAuditLog();
    const entries = ["team-1", "other-1", "team-2", "other-2"].map((alias, i) =>
      anAuditEntry({ at: new Date(Date.now() - 60_000 + i), action: "add", alias: alias as Alias }),
    );
    for (const entry of entries) await expectRight(audit.record(entry));
    const decoded = await query({ alias: "*", lastEventId: entries[0]?.id });
    const globbed: string[] = [];
    const counting = { ...decoded, alias: { test: (subject: string) => (globbed.push(subject), true) } };
    const items: FeedItem[] = [];
    const stop = await expectRight(
      followEvents(audit)(counting, (item) => void items.push(item), {
        readable: (alias) => alias.startsWith("team-"),
      }),
    );
    stop();
    expect(eventsOf(items).map((event) => event.subject)).toEqual(["team-2"]);
    // The reader's glob met the readable alias only (the store's selection and the decoded event each ask it).
    expect(new Set(globbed)).toEqual(new Set(["team-2"]));
  });

  // Regression (issue 36, 7b): `events --follow` printed an event twice when its entry was already readable when the
  // catch-up read the trail but was told to subscribers only after it (a lowdb change landing late, a slow NOTIFY).
  it("hands on once an entry the catch-up replayed and the log tells only after the catch-up ended", async () => {
    const log = createInMemoryAuditLog();
    let tell: (entry: AuditEntry) => void = () => undefined;
    const lateTelling: typeof log = {
      ...log,
      subscribe: (listener) => async () => E.right(((tell = listener), () => undefined)),
    };
    const [first, racing, later] = [0, 1, 2].map((i) =>
      anAuditEntry({ at: new Date(Date.now() - 1_000 + i), action: "add", alias: `c${i}` as Alias }),
    ) as [AuditEntry, AuditEntry, AuditEntry];
    await expectRight(log.record(first));
    await expectRight(log.record(racing));
    const items: FeedItem[] = [];
    await expectRight(
      followEvents(lateTelling)(await query({ lastEventId: first.id }), (item) => void items.push(item)),
    );
    tell(racing);
    // A store may tell one entry twice (its own landing, then its file watch): still handed on once.
    tell(racing);
    tell(later);
    expect(eventsOf(items).map((event) => event.id)).toEqual([racing.id, later.id]);
  });

  // Issue 36, finding 1: 50 replays at once grew the process by up to 234 MiB; at most 8 read and send at once.
  it("lets at most 8 catch-ups over one log read at once; the others wait their turn and all finish", async () => {
    const log = createInMemoryAuditLog();
    const entries = Array.from({ length: 30 }, (_, i) =>
      anAuditEntry({ at: new Date(Date.now() - 60_000 + i), action: "add", alias: `c${i}` as Alias }),
    );
    for (const entry of entries) await expectRight(log.record(entry));
    let reading = 0;
    let most = 0;
    const counted: typeof log = {
      ...log,
      listAfter: (after, limit, select) => async () => {
        reading += 1;
        most = Math.max(most, reading);
        await new Promise((resolve) => setTimeout(resolve, 5));
        reading -= 1;
        return log.listAfter(after, limit, select)();
      },
    };
    const seen = Array.from({ length: 20 }, () => [] as string[]);
    const stops = await Promise.all(
      seen.map(async (events) =>
        expectRight(
          followEvents(counted)(await query({ lastEventId: entries[0]?.id }), (item) => {
            if (item._tag === "event") events.push(item.event.id);
          }),
        ),
      ),
    );
    stops.forEach((stop) => stop());
    expect(most).toBeLessThanOrEqual(8);
    expect(seen.map((events) => events.length)).toEqual(seen.map(() => entries.length - 1));
  });

  it("answers reset to an id older than the oldest entry kept, then goes live", async () => {
    const audit = createInMemoryAuditLog({ maxEntries: 3, maxAttempts: 3, maxAgeMs: 3_600_000 });
    const entries: AuditEntry[] = Array.from({ length: 4 }, (_, i) =>
      anAuditEntry({ at: new Date(Date.now() - 10_000 + i), action: "add" }),
    );
    for (const entry of entries) await expectRight(audit.record(entry));
    const items: FeedItem[] = [];
    await expectRight(
      followEvents(audit)(await query({ lastEventId: entries[0]?.id }), (item) => void items.push(item)),
    );
    const later = anAuditEntry({ action: "delete" });
    await expectRight(audit.record(later));
    expect(items.map((item) => (item._tag === "reset" ? "reset" : item.event.id))).toEqual(["reset", later.id]);
    // Kept: replayed from there.
    const resumed: FeedItem[] = [];
    await expectRight(
      followEvents(audit)(await query({ lastEventId: entries[2]?.id }), (item) => void resumed.push(item)),
    );
    expect(resumed.map((item) => (item._tag === "event" ? item.event.id : "reset"))).toEqual([
      entries[3]?.id,
      later.id,
    ]);
  });

  it("replays a page at a time as the reader takes it, asks what the reader may read of each stored entry, and stops when the reader leaves (issue 36)", async () => {
    const audit = createInMemoryAuditLog();
    const entries = Array.from({ length: 1000 }, (_, i) =>
      anAuditEntry({
        at: new Date(Date.now() - 60_000 + i),
        action: "add",
        alias: (i % 2 === 0 ? `open-${i}` : `hidden-${i}`) as Alias,
      }),
    );
    for (const entry of entries) await expectRight(audit.record(entry));
    const pages: number[] = [];
    const counted = {
      ...audit,
      listAfter: (...args: Parameters<typeof audit.listAfter>) => {
        pages.push(pages.length);
        return audit.listAfter(...args);
      },
    };
    const asked: string[] = [];
    const readable = (alias: string) => {
      asked.push(alias);
      return alias.startsWith("open-");
    };
    const items: FeedItem[] = [];
    let release: () => void = () => undefined;
    const left = new AbortController();
    const following = followEvents(counted)(
      await query({ lastEventId: entries[0]?.id, alias: "*-*" }),
      (item) => {
        items.push(item);
        // The reader takes 10 items, then its socket is full: the feed waits for it.
        if (items.length === 10) return new Promise<void>((resume) => (release = resume));
      },
      { readable, signal: left.signal },
    )();
    await tick();
    await tick();
    expect(items).toHaveLength(10);
    // Waiting on the reader: one page read (and the look for the oldest entry), not the trail.
    expect(pages).toHaveLength(2);
    expect(eventsOf(items).map((event) => event.subject)).toEqual(
      entries
        .filter((entry, i) => i > 0 && i % 2 === 0)
        .slice(0, 10)
        .map((entry) => entry.alias),
    );
    // Every alias was asked of `readable` first; none hidden was handed on.
    expect(asked).toContain("hidden-1");
    left.abort();
    release();
    expect(E.isRight(await following)).toBe(true);
    // Gone: nothing more was read or handed on.
    expect(items).toHaveLength(10);
    expect(pages).toHaveLength(2);
  });
});
