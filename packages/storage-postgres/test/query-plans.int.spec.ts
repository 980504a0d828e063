import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { anAuditEntry, aWebhook, expectRight } from "@sdwan-connections/core/testing";
import { createPostgresAuditLog, migrate } from "../src/index.js";
import { createPostgresWebhookStore } from "../src/webhooks.js";
import { aKeyring, aPool, startPostgres, type StartedPostgres } from "./postgres-container.js";

let postgres: StartedPostgres;
let pool: pg.Pool;

interface PlanNode {
  readonly "Node Type": string;
  readonly "Relation Name"?: string;
  readonly "Index Name"?: string;
  readonly "Index Cond"?: string;
  readonly Plans?: readonly PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
/** How the planner would read each table of a statement (not run): the scan, its index and what it looks up there. */
const readsOf = async (text: string, values: readonly unknown[]) => {
  const { rows } = await pool.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`explain (format json) ${text}`, [
    ...values,
  ]);
  return nodesOf(rows[0]!["QUERY PLAN"][0].Plan)
    .filter(
      (node) => (node["Relation Name"] ?? node["Index Name"]) !== undefined && node["Node Type"] !== "ModifyTable",
    )
    .map((node) => ({
      scan: node["Node Type"],
      table: node["Relation Name"] ?? null,
      index: node["Index Name"] ?? null,
      lookup: node["Index Cond"] ?? null,
    }));
};
const byPrimaryKey = {
  scan: "Index Scan",
  table: "sdwan_webhooks",
  index: "sdwan_webhooks_pkey",
  lookup: expect.stringMatching(/^\(id = '[0-9a-f-]{36}'::uuid\)$/),
};

beforeAll(async () => {
  postgres = await startPostgres({ label: "storage-postgres" });
  pool = aPool(postgres.connectionString, 2);
  await expectRight(migrate(pool));
});

afterAll(async () => {
  try {
    await pool?.end();
  } finally {
    await postgres?.stop(); // even when closing failed: never leave a container behind
  }
});

describe("reads of one webhook", () => {
  it("use the primary key and the history's index, not a scan of the tables (a webhook's deliveries among 40 000)", async () => {
    const store = createPostgresWebhookStore({ pool, keyring: aKeyring() });
    const webhook = aWebhook();
    await expectRight(store.create(webhook, { secret: "whsec_c2VjcmV0", credentials: null }));
    const audit = createPostgresAuditLog({ pool });
    for (let change = 0; change < 20; change += 1) await expectRight(audit.record(anAuditEntry()));
    await audit.close();
    // Other webhooks' rows (never decoded: only planned), enough that reading all of them costs more than the index.
    await pool.query(
      `insert into sdwan_webhooks (id, url, types, kind, created_at, secrets)
         select gen_random_uuid(), 'https://receiver.example/' || n, '{*}', 'cloudevents', now(), 'v1.sealed'
           from generate_series(1, 2000) n`,
    );
    await pool.query(
      `insert into sdwan_webhook_deliveries (id, webhook_id, event_id, event, status, next_attempt_at)
         select gen_random_uuid(), w.id, 'event', '{}', 'delivered', now()
           from sdwan_webhooks w, generate_series(1, 20) n where w.id <> $1`,
      [webhook.id],
    );
    await pool.query("analyze sdwan_webhooks, sdwan_webhook_deliveries");

    const sent = vi.spyOn(pool, "query");
    await expectRight(store.get(webhook.id));
    await expectRight(store.secrets(webhook.id));
    const delivered = await expectRight(store.deliveries(webhook.id, 100));
    await expectRight(store.remove(randomUUID()));
    const statements = sent.mock.calls.map(([text, values]) => [text as string, (values ?? []) as unknown[]] as const);
    sent.mockRestore();
    expect(delivered).toHaveLength(20);
    expect(statements).toHaveLength(4);

    const [get, secrets, deliveries, remove] = await Promise.all(
      statements.map(([text, values]) => readsOf(text, values)),
    );
    expect([get, secrets, remove]).toEqual([[byPrimaryKey], [byPrimaryKey], [byPrimaryKey]]);
    // The deliveries: looked up in an index by the webhook's id (an index scan, or a bitmap of the index's rows).
    expect(deliveries).toContainEqual(
      expect.objectContaining({
        index: expect.stringMatching(/^sdwan_webhook_deliveries_(history|settled)$/),
        lookup: expect.stringMatching(/^\(webhook_id = '[0-9a-f-]{36}'::uuid\)$/),
      }),
    );
    expect(deliveries?.filter((read) => read.scan === "Seq Scan")).toEqual([]);
    // The control: the same read by the id's text, as before, can look nothing up by webhook: it reads every delivery.
    const before = await readsOf(
      "select id from sdwan_webhook_deliveries where webhook_id::text = $1 order by seq desc limit $2",
      [webhook.id, 100],
    );
    expect(before.filter((read) => read.lookup?.includes("webhook_id"))).toEqual([]);
  });
});

describe("a replay's page of the audit trail (issue 40)", () => {
  it("seeks by id in the primary key's index: a page after a cursor costs its rows, not the trail's (40 000 entries)", async () => {
    const audit = createPostgresAuditLog({ pool });
    const first = anAuditEntry();
    await expectRight(audit.record(first));
    await pool.query(
      `insert into audit_entries (id, at, actor, request_id, action, alias, fields, forced, validation, outcome, failure, detail)
         select to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '-' || lpad(to_hex(n), 10, '0'), now(), 'admin', null,
                'add', 'c' || n, '{}', false, 'valid', 'succeeded', null, null
           from generate_series(1, 40000) n`,
    );
    await pool.query("analyze audit_entries");
    const sent = vi.spyOn(pool, "query");
    const page = await expectRight(audit.listAfter(first.id, 100));
    const statements = sent.mock.calls.map(([text, values]) => [text as string, (values ?? []) as unknown[]] as const);
    sent.mockRestore();
    await audit.close();
    expect(page.entries).toHaveLength(100);
    expect(statements).toHaveLength(1);
    const [text, values] = statements[0] as readonly [string, unknown[]];
    const reads = await readsOf(text, values);
    expect(reads).toContainEqual(expect.objectContaining({ table: "audit_entries", scan: "Index Scan" }));
    expect(reads.filter((read) => read.scan === "Seq Scan" || read.scan === "Sort")).toEqual([]);
  });
});
