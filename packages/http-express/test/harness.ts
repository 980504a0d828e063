import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createInMemoryStorage, type Clock, type Orchestrator } from "@sdwan-connections/core";
import {
  aCustomer,
  createInMemoryOrchestrator,
  TEST_CUSTOMER_ID,
  TEST_KEYS,
  TEST_PARTNER_ID,
} from "@sdwan-connections/core/testing";
import bcrypt from "bcryptjs";
import * as E from "fp-ts/lib/Either.js";
import { expect } from "vitest";
import { loadConfig, StartupError, type Config } from "@sdwan-connections/composition";
import { startService as startServiceTask, type RunningService, type ServiceOptions } from "../src/service.js";
import { openApiViolations } from "./openapi-validator.js";

export const BASE = "/rest/plugin/sdwan";
export const ADMIN = { name: "admin", password: "admin-password-1" } as const;
export const VIEWER = { name: "viewer", password: "viewer-password-1" } as const;
export const OPERATOR = { name: "operator", password: "operator-password-1" } as const;
export { TEST_KEYS };

export const basic = (user: { readonly name: string; readonly password: string }): string =>
  `Basic ${Buffer.from(`${user.name}:${user.password}`).toString("base64")}`;

export const partnerCustomers = [
  aCustomer({ id: 1, name: "ACME_HQ", enterpriseId: "0b5f7a4e-1111-4c1e-9a57-0a1b2c3d4e5f" }),
  aCustomer({ id: 2, name: "ACME_BRANCH", enterpriseId: "0b5f7a4e-2222-4c1e-9a57-0a1b2c3d4e5f", latitude: null }),
];

export const testOrchestrator = () =>
  createInMemoryOrchestrator([
    {
      apiKey: TEST_KEYS.partner,
      identity: { kind: "partner", partnerId: TEST_PARTNER_ID },
      customers: partnerCustomers,
    },
    { apiKey: TEST_KEYS.customer, identity: { kind: "customer", customerId: TEST_CUSTOMER_ID } },
  ]);

/** Everything the service logged, one parsed JSON object per line, plus the raw text. */
export const captureLogs = () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(
        ...chunk
          .toString("utf8")
          .split("\n")
          .filter((line) => line !== ""),
      );
      callback();
    },
  });
  return {
    stream,
    lines,
    text: () => lines.join("\n"),
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
};

export const makeDataDir = () => mkdtemp(join(tmpdir(), "sdwan-http-"));

/** A data dir with an htpasswd file: `viewer` (a viewer) and `operator` (an admin), bcrypt cost 4 to keep tests fast. */
export const makeUsersDir = async () => {
  const dir = await makeDataDir();
  const htpasswd = join(dir, "users.htpasswd");
  await writeFile(
    htpasswd,
    [
      "# test users",
      `${VIEWER.name}:${bcrypt.hashSync(VIEWER.password, 4).replace(/^\$2b\$/, "$2y$")}`,
      `${OPERATOR.name}:${bcrypt.hashSync(OPERATOR.password, 4)}`,
      "",
    ].join("\n"),
  );
  return { dir, htpasswd };
};

/** The service, started; its one-line failure becomes a rejected StartupError, as tests expect of a start. */
export const startService = async (config: Config, options: ServiceOptions = {}): Promise<RunningService> => {
  const started = await startServiceTask(config, options)();
  if (E.isLeft(started)) throw new StartupError(started.left);
  return started.right;
};

/** A test service's configuration: background health (on by default) off unless `env` turns it on, so its rounds add no event a test counts. */
export const testConfig = (env: Record<string, string | undefined>): Config => {
  const config = loadConfig({ SDWAN_PORT: "0", SDWAN_LOG_LEVEL: "info", SDWAN_HEALTH_INTERVAL_S: "0", ...env });
  if (E.isLeft(config)) throw new Error(config.left);
  return config.right;
};

/**
 * The service as `pnpm start` wires it from `env` (the embedded store unless it names another), on a temporary
 * data directory removed when it closes, with the environment's admin and core's fake orchestrator (or `orchestrator`).
 */
export const startWiredService = async (
  env: Record<string, string> = {},
  orchestrator: Orchestrator = testOrchestrator(),
): Promise<RunningService & AsyncDisposable & { readonly dir: string }> => {
  const dir = await makeDataDir();
  const started = await startServiceTask(
    testConfig({ SDWAN_DATA_DIR: dir, SDWAN_ADMIN_USER: ADMIN.name, SDWAN_ADMIN_PASSWORD: ADMIN.password, ...env }),
    {
      orchestrator,
      logDestination: captureLogs().stream,
    },
  )();
  const removeDir = () => rm(dir, { recursive: true, force: true });
  if (E.isLeft(started)) {
    await removeDir();
    throw new StartupError(started.left);
  }
  const close = async () => {
    await started.right.close();
    await removeDir();
  };
  return { ...started.right, dir, close, [Symbol.asyncDispose]: close };
};

export interface Harness extends AsyncDisposable {
  readonly service: RunningService;
  readonly logs: ReturnType<typeof captureLogs>;
  readonly call: ReturnType<typeof client>;
  readonly dir: string;
}

/** The real app on 127.0.0.1, port 0, with in-memory storage and orchestrator fakes unless given others. */
export const startHarness = async (
  options: {
    readonly env?: Record<string, string | undefined>;
    readonly orchestrator?: Orchestrator;
    readonly clock?: Clock;
    readonly service?: Partial<ServiceOptions>;
  } = {},
): Promise<Harness> => {
  const { dir, htpasswd } = await makeUsersDir();
  const logs = captureLogs();
  const config = testConfig({
    SDWAN_DATA_DIR: dir,
    SDWAN_ADMIN_USER: ADMIN.name,
    SDWAN_ADMIN_PASSWORD: ADMIN.password,
    SDWAN_HTPASSWD_FILE: htpasswd,
    SDWAN_VIEWERS: VIEWER.name,
    ...options.env,
  });
  const service = await startService(config, {
    storage: createInMemoryStorage({ failureWindowMs: config.loginWindowMs }),
    orchestrator: options.orchestrator ?? testOrchestrator(),
    logDestination: logs.stream,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...options.service,
  });
  return {
    service,
    logs,
    dir,
    call: client(service.url),
    [Symbol.asyncDispose]: async () => {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json<T = unknown>(): T;
}

/**
 * Calls the service and checks the answer against the OpenAPI document
 * (every API response of every test goes through here).
 */
export const client =
  (url: string) =>
  async (
    method: string,
    path: string,
    options: {
      readonly user?: { readonly name: string; readonly password: string } | null;
      readonly body?: unknown;
      readonly rawBody?: string;
      readonly headers?: Record<string, string>;
    } = {},
  ): Promise<Reply> => {
    const user = options.user === undefined ? ADMIN : options.user;
    const headers: Record<string, string> = { ...(user === null ? {} : { authorization: basic(user) }) };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    if (options.rawBody !== undefined) body = options.rawBody;
    Object.assign(headers, options.headers);
    const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    const apiPath = new URL(path, "http://x").pathname;
    if (
      apiPath.startsWith(BASE) &&
      !apiPath.endsWith("openapi.json") &&
      response.status !== 405 &&
      !["HEAD", "OPTIONS"].includes(method)
    ) {
      const documentedPath = apiPath.slice(BASE.length).replace(/\/$/, "") || "/";
      const violations = openApiViolations(
        method,
        documentedPath,
        response.status,
        response.headers.get("content-type"),
        text,
      );
      expect(violations, `${method} ${path} → ${response.status} ${text.slice(0, 300)}`).toEqual([]);
    }
    return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
  };

export const anAddBody = (overrides: Record<string, unknown> = {}) => ({
  alias: "Lab",
  orchestratorUrl: "https://orchestrator.example.net/",
  apiKey: TEST_KEYS.partner,
  ...overrides,
});
