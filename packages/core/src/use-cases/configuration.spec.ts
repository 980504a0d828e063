import { describe, expect, it, vi } from "vitest";
import { createTestWorld, expectLeft, expectRight, TEST_KEYS } from "../../testing/index.js";
import { planForNoStore, stepName, type StepResult } from "./configuration.js";

const entry = (alias: string, apiKey: string = TEST_KEYS.partner, orchestratorUrl = "https://vco.example.net/") => ({
  alias,
  orchestratorUrl,
  apiKey,
});
const summary = (results: readonly StepResult[]) =>
  results.map(({ step, outcome }) => `${step.action} ${stepName(step)}: ${outcome}`);

describe("configuration as code", () => {
  it("applies several steps at once, answering in the plan's order", async () => {
    const { service } = createTestWorld();
    const desired = Array.from({ length: 50 }, (_, index) => entry(`c${index}`));
    const plan = await expectRight(service.connections.plan(desired));
    expect(summary(await service.connections.apply(plan, { force: true, concurrency: 16 }))).toEqual(
      desired.map(({ alias }) => `create ${alias}: applied`),
    );
    expect(await expectRight(service.connections.list())).toHaveLength(50);
  });

  it("looks up only the connections the store lists: a file of new ones asks the store nothing per entry", async () => {
    const { service, repository } = createTestWorld();
    await service.connections.apply(await expectRight(service.connections.plan([entry("a")])), { force: true });
    const get = vi.spyOn(repository, "get");
    const plan = await expectRight(service.connections.plan([entry("A"), entry("b"), entry("c")]));
    expect(plan.steps.map(({ action, alias }) => `${action} ${alias}`)).toEqual([
      "unchanged a",
      "create b",
      "create c",
    ]);
    expect(get.mock.calls).toEqual([["A"]]);
  });

  it("asks the store the same per entry whatever its size: one lookup per entry it lists, none per stored connection", async () => {
    const calls = async (stored: number) => {
      const { service, repository } = createTestWorld();
      const filler = Array.from({ length: stored }, (_, index) => entry(`stored-${index}`));
      await service.connections.apply(await expectRight(service.connections.plan(filler)), { force: true });
      const get = vi.spyOn(repository, "get");
      const file = [...filler.slice(0, 10), ...Array.from({ length: 10 }, (_, index) => entry(`new-${index}`))];
      await expectRight(service.connections.plan(file));
      return get.mock.calls.length;
    };
    expect(await calls(10)).toBe(10);
    expect(await calls(2_000)).toBe(10);
  });

  it("stops when its signal is aborted: the steps under way are interrupted, the rest skipped", async () => {
    const { service } = createTestWorld();
    const plan = await expectRight(service.connections.plan([entry("a"), entry("b"), entry("c")]));
    const stop = new AbortController();
    stop.abort();
    expect(summary(await service.connections.apply(plan, { signal: stop.signal }))).toEqual([
      "create a: skipped",
      "create b: skipped",
      "create c: skipped",
    ]);
    expect(await expectRight(service.connections.list())).toEqual([]);
  });

  it("plans and applies creations; the same file a second time plans and changes nothing", async () => {
    const { service } = createTestWorld();
    const desired = [entry("Lab"), entry("edge", TEST_KEYS.customer)];
    const plan = await expectRight(service.connections.plan(desired));
    expect(plan.steps).toEqual([
      { action: "create", alias: "Lab", fields: ["orchestratorUrl", "apiKey"] },
      { action: "create", alias: "edge", fields: ["orchestratorUrl", "apiKey"] },
    ]);
    expect(summary(await service.connections.apply(plan, { by: { name: "ops" } }))).toEqual([
      "create Lab: applied",
      "create edge: applied",
    ]);
    const again = await expectRight(service.connections.plan(desired));
    expect(again.steps.map((step) => step.action)).toEqual(["unchanged", "unchanged"]);
    const audited = (await expectRight(service.audit.list({}))).entries.length;
    expect(summary(await service.connections.apply(again))).toEqual([
      "unchanged Lab: unchanged",
      "unchanged edge: unchanged",
    ]);
    expect((await expectRight(service.audit.list({}))).entries).toHaveLength(audited);
  });

  it("carries keyRenewal (SPEC §12): created with it, planned as a change when it differs, left as stored when the entry omits it", async () => {
    const { service } = createTestWorld();
    const renewing = { ...entry("lab"), keyRenewal: "auto" };
    const created = await expectRight(service.connections.plan([renewing, entry("edge")]));
    expect(created.steps).toEqual([
      { action: "create", alias: "lab", fields: ["orchestratorUrl", "apiKey", "keyRenewal"] },
      { action: "create", alias: "edge", fields: ["orchestratorUrl", "apiKey"] },
    ]);
    await service.connections.apply(created, { force: true });
    const renewal = async (alias: string) => (await expectRight(service.connections.describe(alias))).keyRenewal;
    expect([await renewal("lab"), await renewal("edge")]).toEqual(["auto", "off"]);
    for (const same of [
      [renewing, entry("edge")],
      [entry("lab"), { ...entry("edge"), keyRenewal: "off" }],
    ])
      expect((await expectRight(service.connections.plan(same))).steps.map((step) => step.action)).toEqual([
        "unchanged",
        "unchanged",
      ]);
    const switched = await expectRight(
      service.connections.plan([
        { ...renewing, keyRenewal: "off" },
        { ...entry("edge"), keyRenewal: "auto" },
      ]),
    );
    expect(switched.steps).toEqual([
      { action: "update", alias: "lab", fields: ["keyRenewal"] },
      { action: "update", alias: "edge", fields: ["keyRenewal"] },
    ]);
    expect(summary(await service.connections.apply(switched, { force: true }))).toEqual([
      "update lab: applied",
      "update edge: applied",
    ]);
    expect([await renewal("lab"), await renewal("edge")]).toEqual(["off", "auto"]);
    expect(await expectLeft(service.connections.plan([{ ...entry("lab"), keyRenewal: "sometimes" }]))).toMatchObject({
      errors: [{ field: "connections.0.keyRenewal", message: "must be one of auto, off" }],
    });
  });

  it("updates only what differs (the key compared by fingerprint), and deletes what the file omits only with prune", async () => {
    const { service } = createTestWorld();
    await service.connections.apply(
      await expectRight(service.connections.plan([entry("lab"), entry("old"), entry("edge", TEST_KEYS.customer)])),
    );
    const desired = [entry("LAB", TEST_KEYS.partner, "https://moved.example.net/"), entry("edge", TEST_KEYS.partner)];
    expect((await expectRight(service.connections.plan(desired))).steps).toEqual([
      { action: "update", alias: "lab", fields: ["orchestratorUrl"] },
      { action: "update", alias: "edge", fields: ["apiKey"] },
    ]);
    const pruning = await expectRight(service.connections.plan(desired, { prune: true }));
    expect(pruning.steps.at(-1)).toEqual({ action: "delete", alias: "old", fields: [] });
    expect(summary(await service.connections.apply(pruning))).toEqual([
      "update lab: applied",
      "update edge: applied",
      "delete old: applied",
    ]);
    expect(await expectRight(service.connections.list())).toEqual([
      { alias: "edge", orchestratorUrl: "https://vco.example.net/" },
      { alias: "lab", orchestratorUrl: "https://moved.example.net/" },
    ]);
  });

  it("validates each entry unless forced; a failed step does not stop the others, and says why", async () => {
    const { service } = createTestWorld();
    const plan = await expectRight(service.connections.plan([entry("refused", TEST_KEYS.refused), entry("good")]));
    const results = await service.connections.apply(plan);
    expect(summary(results)).toEqual(["create refused: failed", "create good: applied"]);
    expect(results[0]).toMatchObject({ error: { _tag: "ValidationRefused" } });
    expect(
      summary(
        await service.connections.apply(
          await expectRight(service.connections.plan([entry("refused", TEST_KEYS.refused)])),
          {
            force: true,
          },
        ),
      ),
    ).toEqual(["create refused: applied"]);
  });

  it("refuses a file with a repeated alias or a bad entry, naming the place and never a value", async () => {
    const { service } = createTestWorld();
    expect(await expectLeft(service.connections.plan([entry("lab"), entry("LAB")]))).toEqual({
      _tag: "InvalidInput",
      errors: [{ field: "connections.1.alias", message: expect.stringContaining("repeats") }],
    });
    const bad = await expectLeft(
      service.connections.plan([{ ...entry("lab", "a-secret-value"), orchestratorUrl: "ftp://x" }]),
    );
    expect(bad).toMatchObject({ _tag: "InvalidInput", errors: [{ field: "connections.0.orchestratorUrl" }] });
    expect(JSON.stringify(bad)).not.toContain("a-secret-value");
  });

  it("names where each entry's key comes from in its step, never the key", async () => {
    const { service } = createTestWorld();
    await service.connections.apply(await expectRight(service.connections.plan([entry("lab")])));
    const steps = (
      await expectRight(
        service.connections.plan([
          { ...entry("lab"), keySource: "env:SDWAN_APIKEY_LAB" },
          { ...entry("edge", TEST_KEYS.customer), keySource: "file:edge.key" },
        ]),
      )
    ).steps;
    expect(steps).toEqual([
      { action: "unchanged", alias: "lab", fields: [], keySource: "env:SDWAN_APIKEY_LAB" },
      { action: "create", alias: "edge", fields: ["orchestratorUrl", "apiKey"], keySource: "file:edge.key" },
    ]);
    expect(JSON.stringify(steps)).not.toContain(TEST_KEYS.customer);
    expect(await expectLeft(service.connections.plan([{ ...entry("lab"), keySource: 7 }]))).toEqual({
      _tag: "InvalidInput",
      errors: [{ field: "connections.0.keySource", message: "must be a string" }],
    });
  });

  it("plans against no store (a dry run creates none): every entry created, the file checked as ever", async () => {
    expect(
      (await expectRight(planForNoStore([entry("lab"), entry("edge", TEST_KEYS.customer)], { prune: true }))).steps.map(
        (step) => `${step.action} ${step.alias}`,
      ),
    ).toEqual(["create lab", "create edge"]);
    expect(await expectLeft(planForNoStore([entry("lab"), entry("LAB")]))).toMatchObject({ _tag: "InvalidInput" });
  });

  // Issue 30: `export | apply --dry-run` failed until every key variable was set.
  it("plans an entry without a key unchanged when stored at the same URL, its key not checked; otherwise says a key is needed", async () => {
    const { service } = createTestWorld();
    await service.connections.apply(await expectRight(service.connections.plan([entry("lab"), entry("edge")])));
    const keyless = (alias: string, orchestratorUrl = "https://vco.example.net/") => ({
      alias,
      orchestratorUrl,
      keySource: `env:SDWAN_APIKEY_${alias.toUpperCase()}`,
    });
    const plan = await expectRight(service.connections.plan([keyless("LAB"), entry("edge", TEST_KEYS.customer)]));
    expect(plan.steps).toEqual([
      { action: "unchanged", alias: "lab", fields: [], keySource: "env:SDWAN_APIKEY_LAB", keyChecked: false },
      { action: "update", alias: "edge", fields: ["apiKey"] },
    ]);
    expect(summary(await service.connections.apply(plan))).toEqual([
      "unchanged lab: unchanged",
      "update edge: applied",
    ]);
    expect(
      await expectLeft(service.connections.plan([keyless("lab", "https://moved.example.net/"), keyless("new")])),
    ).toEqual({
      _tag: "InvalidInput",
      errors: [
        {
          field: "connections.0.apiKey",
          message: "env:SDWAN_APIKEY_LAB gives no key, and one is needed to create this connection or change its URL",
        },
        {
          field: "connections.1.apiKey",
          message: "env:SDWAN_APIKEY_NEW gives no key, and one is needed to create this connection or change its URL",
        },
      ],
    });
  });

  describe("grants (SPEC §11: apply plans them; deletes only with --prune)", () => {
    const grant = (subject: string, pattern: string, verb = "read") => ({ subject, pattern, verb });

    it("creates the grants the file says, audited as the applier, and finds them unchanged the second time", async () => {
      const { service } = createTestWorld();
      const grants = [grant("user:alice", "prod-*", "manage"), grant("group:emea", "emea-*")];
      const plan = await expectRight(service.connections.plan([], { grants }));
      expect(plan.grants.map(({ action }) => action)).toEqual(["create", "create"]);
      expect(summary(await service.connections.apply(plan, { by: { name: "ops" } }))).toEqual([
        "create grant user:alice manage prod-*: applied",
        "create grant group:emea read emea-*: applied",
      ]);
      expect((await expectRight(service.grants.list())).map(({ subject }) => subject)).toEqual([
        "user:alice",
        "group:emea",
      ]);
      const audit = await expectRight(service.audit.list({}));
      expect(audit.entries.filter(({ action }) => action === "grant-add").map(({ actor }) => actor)).toEqual([
        "ops",
        "ops",
      ]);
      // The same grant with its pattern in another case is the same grant.
      const again = await expectRight(
        service.connections.plan([], { grants: [grant("user:alice", "PROD-*", "manage"), grants[1]], prune: true }),
      );
      expect(again.grants.map(({ action }) => action)).toEqual(["unchanged", "unchanged"]);
    });

    it("deletes a stored grant the file does not say only with prune, and leaves grants alone without a list", async () => {
      const { service } = createTestWorld();
      await expectRight(service.grants.add(grant("user:bob", "lab")));
      await expectRight(service.grants.add(grant("user:alice", "prod-*")));
      const kept = await expectRight(service.connections.plan([], { grants: [grant("user:alice", "prod-*")] }));
      expect(kept.grants.map(({ action, grant: { subject } }) => `${action} ${subject}`)).toEqual([
        "unchanged user:alice",
      ]);
      expect((await expectRight(service.connections.plan([], { prune: true }))).grants).toEqual([]);
      const pruned = await expectRight(
        service.connections.plan([], { grants: [grant("user:alice", "prod-*")], prune: true }),
      );
      expect(summary(await service.connections.apply(pruned))).toEqual([
        "unchanged grant user:alice read prod-*: unchanged",
        "delete grant user:bob read lab: applied",
      ]);
      expect((await expectRight(service.grants.list())).map(({ subject }) => subject)).toEqual(["user:alice"]);
    });

    it("refuses a malformed or repeated grant at its place, changing nothing", async () => {
      const { service } = createTestWorld();
      const error = await expectLeft(
        service.connections.plan([], {
          grants: [
            grant("alice", "prod-*"),
            grant("user:bob", "lab", "write"),
            grant("user:c", "x"),
            grant("user:c", "X"),
          ],
        }),
      );
      expect(error).toMatchObject({ _tag: "InvalidInput" });
      expect(error._tag === "InvalidInput" ? error.errors.map(({ field }) => field) : []).toEqual([
        "grants.0.subject",
        "grants.1.verb",
        "grants.3",
      ]);
      await expectLeft(service.connections.plan([], { grants: "user:alice" }));
      expect(await expectRight(service.grants.list())).toEqual([]);
    });
  });
});
