import type { ServiceProcess } from "@sdwan-connections/bench-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE, report, startWorld, tally, type World } from "./support.js";

const CLIENTS = 50;
const REQUESTS_PER_CLIENT = 40;
const KEYS = ["sample-partner-key-1", "sample-customer-key-1-1"];

type Model = Map<string, string>;

/**
 * One client's requests: a seeded sequence of adds, updates, deletes, lists,
 * validations and customers on its own three aliases (so its part of the
 * final state is a model it can keep alone), all at once with the other clients'.
 */
const runClient = async (
  service: ServiceProcess,
  simulatorUrl: string,
  client: number,
  statuses: ReturnType<typeof tally>,
): Promise<Model> => {
  const model: Model = new Map();
  let seed = client * 7919 + 1;
  const next = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  for (let i = 0; i < REQUESTS_PER_CLIENT; i += 1) {
    const alias = `c${client}-a${next(3)}`;
    // Both forms reach the simulator: with and without the trailing slash.
    const url = next(2) === 0 ? simulatorUrl : simulatorUrl.replace(/\/$/, "");
    const exists = model.has(alias.toLowerCase());
    let reply: { status: number };
    let expected: number;
    switch (next(6)) {
      case 0:
        reply = await service.call("POST", `${BASE}/connections`, {
          body: { alias, orchestratorUrl: simulatorUrl, apiKey: KEYS[next(2)] },
        });
        expected = exists ? 409 : 200;
        if (reply.status === 200) model.set(alias.toLowerCase(), simulatorUrl);
        break;
      case 1:
        reply = await service.call("PUT", `${BASE}/connections/${alias}?force=true`, {
          body: { orchestratorUrl: url },
        });
        expected = exists ? 200 : 404;
        if (reply.status === 200) model.set(alias.toLowerCase(), url);
        break;
      case 2:
        reply = await service.call("DELETE", `${BASE}/connections/${alias}`);
        expected = exists ? 204 : 404;
        if (reply.status === 204) model.delete(alias.toLowerCase());
        break;
      case 3:
        reply = await service.call("GET", `${BASE}/connections`);
        expected = 200;
        break;
      case 4:
        reply = await service.call("GET", `${BASE}/connections/${alias}?verbose=true`);
        expected = exists ? 200 : 404;
        break;
      default:
        reply = await service.call("GET", `${BASE}/partner/${alias}/customers`);
        // A customer key is not a partner's: 409.
        expected = exists ? (reply.status === 409 ? 409 : 200) : 404;
    }
    statuses.add(reply.status);
    expect(reply.status, `client ${client}, request ${i}`).toBe(expected);
  }
  return model;
};

describe("mixed load against the service process", { timeout: 300_000 }, () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world?.close());

  it(`${CLIENTS * REQUESTS_PER_CLIENT} mixed requests from ${CLIENTS} clients: no 5xx, and the final state equals the model's`, async () => {
    const statuses = tally();
    const { service, simulator } = world;
    const started = performance.now();
    const models = await Promise.all(
      Array.from({ length: CLIENTS }, (_, client) => runClient(service, simulator.url, client, statuses)),
    );
    const seconds = (performance.now() - started) / 1000;
    expect([...statuses.statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    const expected = models
      .flatMap((model) => [...model])
      .map(([alias, orchestratorUrl]) => ({ alias, orchestratorUrl }));
    const listed = (await service.call("GET", `${BASE}/connections`)).json<
      { alias: string; orchestratorUrl: string }[]
    >();
    expect(listed).toEqual(expected.sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0)));
    // And the same after a restart: every acknowledged write is on disk.
    const restarted = await world.restart();
    expect((await restarted.call("GET", `${BASE}/connections`)).json()).toEqual(listed);
    await report(
      "load",
      `Last run: ${CLIENTS * REQUESTS_PER_CLIENT} requests from ${CLIENTS} clients in ${seconds.toFixed(1)} s (${Math.round((CLIENTS * REQUESTS_PER_CLIENT) / seconds)} req/s), none 5xx; ${listed.length} connections at the end, equal to the model's, and again after a restart. By status: ${statuses}.`,
    );
  });
});
