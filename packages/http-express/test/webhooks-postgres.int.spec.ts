import { randomBytes, randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { reportFigures } from "@sdwan-connections/bench-kit";
import { openService } from "@sdwan-connections/composition";
import { startPostgres, type StartedPostgres } from "@sdwan-connections/storage-postgres/testing";
import * as E from "fp-ts/lib/Either.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ADMIN, anAddBody, BASE, client, makeDataDir, testConfig, testOrchestrator } from "./harness.js";
import { runMain } from "./main-process.js";
import { startWebhookReceiver } from "./webhook-receiver.js";

const masterKey = randomBytes(32).toString("base64");
let postgres: StartedPostgres;
beforeAll(async () => {
  postgres = await startPostgres({ label: "http-express-webhooks" });
});
afterAll(async () => {
  await postgres?.stop();
});

const onPostgres = (databaseUrl: string) => ({
  SDWAN_STORAGE: "postgres",
  SDWAN_DATABASE_URL: databaseUrl,
  SDWAN_MASTER_KEY: masterKey,
});

/**
 * One PostgreSQL database, a writer without a relay (the use cases opened as the CLI opens them), two service
 * processes each running a relay, and an HTTPS receiver they trust through SDWAN_ORCHESTRATOR_CA_FILE.
 */
const setUp = async (name: string) => {
  const databaseUrl = await postgres.database(name);
  const receiver = await startWebhookReceiver();
  const dir = await makeDataDir();
  const caFile = join(dir, "receiver-ca.pem");
  await writeFile(caFile, receiver.caCert);
  const env = {
    ...onPostgres(databaseUrl),
    SDWAN_ADMIN_USER: ADMIN.name,
    SDWAN_ADMIN_PASSWORD: ADMIN.password,
    SDWAN_ORCHESTRATOR_CA_FILE: caFile,
  };
  const writer = await openService(testConfig({ ...env, SDWAN_DATA_DIR: dir }), { orchestrator: testOrchestrator() })();
  if (E.isLeft(writer)) throw new Error(writer.left.message);
  const instances = new Map<string, ReturnType<typeof runMain>>();
  const start = async (label: string) => {
    const instanceDir = await makeDataDir();
    const run = runMain({ ...env, SDWAN_DATA_DIR: instanceDir });
    instances.set(label, run);
    return run.listening();
  };
  const [url] = await Promise.all([start("one"), start("two")]);
  const webhook = (await client(url as string)("POST", `${BASE}/webhooks`, { body: { url: receiver.url } })).json<{
    id: string;
    secret: string;
  }>();
  receiver.useSecret(webhook.secret);
  const add = async (alias: string) => {
    const added = await writer.right.service.connections.add(anAddBody({ alias }))();
    if (E.isLeft(added)) throw new Error(JSON.stringify(added.left));
  };
  const close = async () => {
    for (const run of instances.values()) if (run.child.exitCode === null) run.child.kill("SIGKILL");
    await writer.right.close();
    await receiver[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  };
  return { receiver, instances, start, add, close, call: client(url as string), webhookId: webhook.id };
};

describe("webhooks: two instances on one PostgreSQL", { timeout: 300_000 }, () => {
  it("each delivery is made once, by one of the two relays", async () => {
    const world = await setUp("webhooks_once");
    try {
      const aliases = Array.from({ length: 60 }, (_, index) => `once-${index}`);
      await Promise.all(aliases.map(world.add));
      await vi.waitFor(() => expect(world.receiver.accepted.length).toBeGreaterThanOrEqual(aliases.length), {
        timeout: 60_000,
        interval: 100,
      });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const ids = world.receiver.accepted.map(({ id }) => id);
      expect(new Set(ids).size).toBe(aliases.length);
      expect(ids).toHaveLength(aliases.length);
      expect(world.receiver.refused).toEqual([]);
    } finally {
      await world.close();
    }
  });

  it("answers an id that is no webhook's, whether or not it has a UUID's form, as unknown (404): never a database error", async () => {
    const world = await setUp("webhooks_ids");
    try {
      await world.add("lab");
      for (const id of ["not-a-uuid", world.webhookId.toUpperCase(), randomUUID()]) {
        const path = `${BASE}/webhooks/${encodeURIComponent(id)}`;
        expect((await world.call("GET", path)).status).toBe(404);
        expect((await world.call("GET", `${path}/deliveries`)).status).toBe(404);
        expect((await world.call("POST", `${path}/ping`)).status).toBe(404);
        expect((await world.call("DELETE", path)).status).toBe(404);
      }
      expect((await world.call("GET", `${BASE}/webhooks/${world.webhookId}/deliveries`)).status).toBe(200);
    } finally {
      await world.close();
    }
  });

  it("500 changes while the delivering instance is killed twice (SIGKILL): every event delivered at least once, none lost, duplicates counted", async () => {
    const world = await setUp("webhooks_kill");
    try {
      const aliases = Array.from({ length: 500 }, (_, index) => `kill-${index}`);
      const kills: string[] = [];
      for (const [index, alias] of aliases.entries()) {
        await world.add(alias);
        // Twice in the burst: the instance that delivers most lately is killed while deliveries are under way.
        if (index === 150 || index === 330) {
          const label = kills.length === 0 ? "one" : "two";
          world.instances.get(label)?.child.kill("SIGKILL");
          kills.push(label);
          void world.start(label);
        }
      }
      await vi.waitFor(() => expect(new Set(world.receiver.accepted.map(({ id }) => id)).size).toBe(aliases.length), {
        timeout: 240_000,
        interval: 250,
      });
      const ids = world.receiver.accepted.map(({ id }) => id);
      const delivered = new Set(ids).size;
      const figures = {
        changes: aliases.length,
        kills: kills.length,
        delivered,
        lost: aliases.length - delivered,
        duplicates: ids.length - delivered,
      };
      await reportFigures(
        "reliability:webhook-sigkill",
        `| changes | SIGKILLs | delivered | lost | duplicates |\n|---|---|---|---|---|\n| ${figures.changes} | ${figures.kills} | ${figures.delivered} | ${figures.lost} | ${figures.duplicates} |`,
      );
      expect(figures.lost).toBe(0);
      // Per webhook in order: the subjects of first deliveries follow the order of the changes.
      const firstSeen = [...new Map(world.receiver.accepted.map(({ id, body }) => [id, body.subject])).values()];
      expect(firstSeen).toEqual(aliases);
    } finally {
      await world.close();
    }
  });
});
