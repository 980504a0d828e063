import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { startOrchestratorSimulator, type Fault, type PortalMethod } from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../src/service.js";
import { ADMIN, BASE, captureLogs, client, makeDataDir, startService, testConfig, type Reply } from "./harness.js";
import { createInMemoryStorage } from "@sdwan-connections/core";

// docs/orchestrator-compatibility.md is the specification: every row of its table runs here.
const DOC = readFileSync(new URL("../../../docs/orchestrator-compatibility.md", import.meta.url), "utf8");
const DEADLINE_MS = 1_500;
const KEYS = { partner: "sample-partner-key-1", customer: "sample-customer-key-1-1" } as const;
const CALLS: Record<string, PortalMethod | undefined> = {
  "partner check": "enterpriseProxy/getEnterpriseProxyProperty",
  "customer check": "enterprise/getEnterprise",
  listing: "enterpriseProxy/getEnterpriseProxyEnterprises",
  "every call": undefined,
};

interface Row {
  readonly call: string;
  readonly answer: string;
  readonly fault: Fault;
  readonly key: keyof typeof KEYS;
  readonly validate: string;
  readonly add: string;
  readonly update: string;
  readonly customers: string;
}

const rows: Row[] = DOC.slice(DOC.indexOf("## Every answer form"))
  .split("\n")
  .filter((line) => line.startsWith("| ") && !line.startsWith("| Call"))
  .map((line) => {
    const [call, answer, fault, key, validate, add, update, customers] = line
      .slice(2, -2)
      .split(" | ")
      .map((cell) => cell.trim());
    const method = CALLS[call as string];
    const parsed = JSON.parse((fault as string).replace(/^`|`$/g, "")) as Fault;
    return {
      call: call as string,
      answer: answer as string,
      fault: method === undefined ? parsed : { ...parsed, method },
      key: key as keyof typeof KEYS,
      validate: validate as string,
      add: add as string,
      update: update as string,
      customers: customers as string,
    };
  });

/** "422, Retry-After: 5" → status 422 and that header; "502 orchestrator-rejected" → status and problem type. */
const expectAnswer = (reply: Reply, expected: string) => {
  const [head = "", retryAfter] = expected.split(", Retry-After: ");
  const [status, problemType] = head.split(" ");
  expect(reply.status, reply.text).toBe(Number(status));
  if (problemType !== undefined)
    expect(reply.json<{ type: string }>().type).toBe(`urn:sdwan-connections:problem:${problemType}`);
  expect(reply.headers.get("retry-after")).toBe(retryAfter ?? null);
};

/** The words that a reason for each outcome must hold (the customers column's problem type): an operator can act on them. */
const WORDS: Record<string, RegExp> = {
  "orchestrator-timeout": new RegExp(`did not answer \\S+ within the ${DEADLINE_MS} ms deadline`),
  "orchestrator-failed":
    /failed to answer \S+ \(HTTP 5\d\d, error code -?\d+\); it is the orchestrator's own error, not a refusal of the key/,
  "orchestrator-unreachable": /Could not connect to the orchestrator for \S+/,
  "orchestrator-rejected": /accepts the API key neither as a partner's \(.+\) nor as a customer's \(.+\)/,
  "orchestrator-rate-limited": /is rate limiting calls to/,
  "orchestrator-garbage": /lacks id/,
};

/** A refused add or update tells its cause as data (the problem's `cause` and `reason`), the same outcome as customers. */
const expectRefusal = (reply: Reply, customers: string) => {
  const { detail, cause, reason } = reply.json<{ detail: string; cause?: string; reason?: string }>();
  expect(cause).toBe(customers.split(/[ ,]/)[1]);
  expect(detail.endsWith(`: ${reason ?? "(none)"}`)).toBe(true);
};

/** For a key found not valid: validate's reason and add's detail say the same outcome as customers, and count no attempts. */
const expectReason = (reason: string, customers: string) => {
  const words = WORDS[customers.split(/[ ,]/)[1] ?? ""];
  if (words !== undefined) expect(reason).toMatch(words);
  expect(reason).not.toMatch(/attempt/);
};

describe("every orchestrator answer form, over HTTP (docs/orchestrator-compatibility.md)", () => {
  let service: RunningService;
  let call: ReturnType<typeof client>;
  let dir: string;
  const logs = captureLogs();

  beforeAll(async () => {
    dir = await makeDataDir();
    service = await startService(
      testConfig({
        SDWAN_DATA_DIR: dir,
        SDWAN_ADMIN_USER: ADMIN.name,
        SDWAN_ADMIN_PASSWORD: ADMIN.password,
        SDWAN_ORCHESTRATOR_TIMEOUT_MS: String(DEADLINE_MS),
        SDWAN_CUSTOMERS_CACHE_TTL_MS: "0",
      }),
      { storage: createInMemoryStorage(), logDestination: logs.stream },
    );
    call = client(service.url);
  });
  afterAll(async () => {
    await service.close();
    await rm(dir, { recursive: true, force: true });
    expect(logs.text()).not.toContain(KEYS.partner);
    expect(logs.text()).not.toContain(KEYS.customer);
  });

  it("reads a table of at least 60 rows", () => {
    expect(rows.length).toBeGreaterThanOrEqual(60);
  });

  it("runs against the simulator's sample, which sends nulls as real orchestrators do", async () => {
    await using simulator = await startOrchestratorSimulator();
    const enterprises = simulator.data.partners.flatMap((partner) => partner.enterprises);
    expect(enterprises.some((enterprise) => Object.values(enterprise).includes(null))).toBe(true);
  });

  it.each(rows.map((row) => [`${row.call}: ${row.answer}, ${row.key} key`, row] as const))("%s", async (_, row) => {
    // A fresh simulator per row: no rate-limit penalty or fault outlives its row.
    await using simulator = await startOrchestratorSimulator();
    const apiKey = KEYS[row.key];
    const orchestratorUrl = simulator.url;
    expect(
      (await call("POST", `${BASE}/connections?force=true`, { body: { alias: "row", orchestratorUrl, apiKey } }))
        .status,
    ).toBe(200);
    simulator.setFault(apiKey, row.fault);

    const timed = async (request: Promise<Reply>): Promise<Reply> => {
      const started = performance.now();
      const reply = await request;
      expect(performance.now() - started, "the deadline + 0.5 s").toBeLessThan(DEADLINE_MS + 500);
      expect(reply.text).not.toContain(apiKey);
      return reply;
    };
    try {
      const validation = await timed(call("GET", `${BASE}/connections/row?verbose=true`));
      expect(validation.status).toBe(200);
      if (row.validate === "invalid") {
        expect(validation.json()).toMatchObject({ valid: false, reason: expect.any(String) });
        expectReason(validation.json<{ reason: string }>().reason, row.customers);
      } else expect(validation.json()).toMatchObject({ valid: true, type: row.validate.replace("valid, ", "") });

      const added = await timed(
        call("POST", `${BASE}/connections`, { body: { alias: "row-added", orchestratorUrl, apiKey } }),
      );
      expectAnswer(added, row.add);
      if (row.validate === "invalid") {
        expectReason(added.json<{ detail: string }>().detail, row.customers);
        expectRefusal(added, row.customers);
      }
      const updated = await timed(call("PUT", `${BASE}/connections/row`, { body: { apiKey } }));
      expectAnswer(updated, row.update);
      if (row.validate === "invalid") expectReason(updated.json<{ detail: string }>().detail, row.customers);
      expectAnswer(await timed(call("GET", `${BASE}/partner/row/customers`)), row.customers);
    } finally {
      for (const alias of ["row", "row-added"]) await call("DELETE", `${BASE}/connections/${alias}`);
    }
  });
});
