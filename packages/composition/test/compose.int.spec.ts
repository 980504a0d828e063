import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import * as E from "fp-ts/lib/Either.js";
import { createInMemoryStorage } from "@sdwan-connections/core";
import * as TE from "fp-ts/lib/TaskEither.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  compose,
  loadConfig,
  offlineOrchestrator,
  openService,
  IDS,
  type Config,
  type StartFailure,
} from "../src/index.js";
import { listConnections } from "./wiring-example.js";

const silent = new Writable({ write: (_chunk, _encoding, callback) => callback() });

describe("the README", () => {
  it("shows the wiring example exactly as tested here", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain((await readFile(new URL("./wiring-example.ts", import.meta.url), "utf8")).trim());
  });
});

// The container's composition (the REST service) and the container-free one (the CLI, embedders) start and stop alike.
const compositions = [
  { name: "compose", start: (config: Config) => compose(config, { logDestination: silent }) },
  // Its failure's line (the kind is the CLI's exit code: cli's tests).
  {
    name: "openService",
    start: (config: Config) =>
      TE.mapLeft(({ message }: StartFailure) => message)(openService(config, { logDestination: silent })),
  },
];

describe("the composition over a fresh data directory", () => {
  let dataDir: string;
  let config: Config;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "sdwan-compose-"));
    config = E.getOrElseW((line: string) => {
      throw new Error(line);
    })(loadConfig({ SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn" }));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  describe.each(compositions)("$name", ({ start }) => {
    it("opens the store and the use cases, and closing closes them: the store's lock is released for the next start", async () => {
      const first = await start(config)();
      if (E.isLeft(first)) throw new Error(first.left);
      expect(
        await first.right.service.connections.add(
          { alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: "k" },
          { force: true },
        )(),
      ).toEqual(E.right("added"));
      await first.right.close();
      await expect(first.right.service.connections.list()()).resolves.toMatchObject(E.left({ _tag: "StorageFailure" }));

      expect(await listConnections({ SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn" })).toEqual(
        E.right([{ alias: "lab", orchestratorUrl: "https://vco.example.net/" }]),
      );
    });

    it("a failing part stops the start with one line, and what was already opened is closed", async () => {
      await writeFile(join(dataDir, "ca.pem"), "no certificate here\n");
      const failed = await start({ ...config, orchestratorCaFile: join(dataDir, "ca.pem") })();
      expect(failed).toEqual(E.left(`SDWAN_ORCHESTRATOR_CA_FILE: ${join(dataDir, "ca.pem")} holds no PEM certificate`));
      // The store opened before the orchestrator failed; its lock is free again.
      expect(await listConnections({ SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn" })).toEqual(E.right([]));
    });

    it("a data directory its group or others may write stops the start with one line", async () => {
      for (const mode of [0o770, 0o707, 0o777]) {
        await chmod(dataDir, mode);
        const refused = await start(config)();
        expect(refused).toEqual(
          E.left(
            `SDWAN_DATA_DIR: ${dataDir} may be written by its group or others (mode 0${mode.toString(8)}); make it private: chmod 700 ${dataDir}`,
          ),
        );
      }
      for (const mode of [0o700, 0o750, 0o755]) {
        await chmod(dataDir, mode);
        const started = await start(config)();
        expect(E.isRight(started), mode.toString(8)).toBe(true);
        if (E.isRight(started)) await started.right.close();
      }
    });

    it("a wrong master key stops the start with one line that holds no key", async () => {
      const key = (byte: number) => Buffer.alloc(32, byte).toString("base64");
      const env = { SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn" };
      const withKey = async (masterKey: string) =>
        start(E.getOrElseW(() => config)(loadConfig({ ...env, SDWAN_MASTER_KEY: masterKey })))();
      const first = await withKey(key(1));
      if (E.isLeft(first)) throw new Error(first.left);
      await first.right.service.connections.add(
        { alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: "k" },
        { force: true },
      )();
      await first.right.close();
      const wrong = await withKey(key(2));
      expect(wrong).toEqual(E.left(expect.stringContaining("wrong master key")));
      expect(JSON.stringify(wrong)).not.toContain(key(2));
    });
  });

  describe("compose's container and openService's orchestrator", () => {
    it("compose binds every module, and closing unbinds them", async () => {
      const composed = await compose(config, { logDestination: silent })();
      if (E.isLeft(composed)) throw new Error(composed.left);
      expect(composed.right.container.isBound(IDS.Orchestrator)).toBe(true);
      await composed.right.close();
      expect(composed.right.container.isBound(IDS.Storage)).toBe(false);
    });

    it("openService given the offline orchestrator never opens the portal client (its CA file is not even read) and admits no orchestrator", async () => {
      const composed = await openService(
        { ...config, orchestratorCaFile: join(dataDir, "absent.pem") },
        { logDestination: silent, orchestrator: offlineOrchestrator },
      )();
      if (E.isLeft(composed)) throw new Error(composed.left.message);
      expect(await composed.right.service.connections.list()()).toEqual(E.right([]));
      expect(
        await composed.right.service.connections.add(
          { alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: "k" },
          { force: true },
        )(),
      ).toEqual(
        E.left({
          _tag: "InvalidInput",
          errors: [{ field: "orchestratorUrl", message: "this command does not ask an orchestrator" }],
        }),
      );
      await composed.right.close();
    });
  });
});

// Zero cost when off (docs/benchmarks.md measures it): without OTEL_* nothing is wrapped and nothing is bound.
describe("traces", () => {
  const open = async (env: Record<string, string>) => {
    const dataDir = await mkdtemp(join(tmpdir(), "sdwan-compose-"));
    const config = E.getOrElseW((line: string) => {
      throw new Error(line);
    })(loadConfig({ SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn", ...env }));
    const storage = createInMemoryStorage();
    const opened = await compose(config, { logDestination: silent, storage, orchestrator: offlineOrchestrator })();
    if (E.isLeft(opened)) throw new Error(opened.left);
    return {
      storage,
      opened: opened.right,
      [Symbol.asyncDispose]: async () => {
        await opened.right.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  };

  it("are off without OTEL_*: the service uses the store itself, and no tracing is bound", async () => {
    await using service = await open({ OTEL_SERVICE_NAME: "named-but-no-endpoint" });
    expect(service.opened.storage).toBe(service.storage);
    expect(service.opened.container.isBound(IDS.Tracing)).toBe(false);
  });

  it("are on with an OTLP endpoint: the store's face is wrapped and the tracing bound for the REST driver", async () => {
    // Nothing listens there: no span is made by this test, so nothing is sent.
    await using service = await open({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(service.opened.storage).not.toBe(service.storage);
    expect(service.opened.container.get(IDS.Tracing)).toBeDefined();
    // Outside a traced request a store call is the store's own (no span: the relay's idle polls make none).
    await expect(service.opened.storage.repository.list()()).resolves.toEqual(E.right([]));
  });

  it("are the REST service's only: openService (a CLI command, an embedder) wraps nothing even with OTEL_* set", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "sdwan-compose-"));
    const config = E.getOrElseW((line: string) => {
      throw new Error(line);
    })(loadConfig({ SDWAN_DATA_DIR: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }));
    const storage = createInMemoryStorage();
    const opened = await openService(config, { logDestination: silent, storage, orchestrator: offlineOrchestrator })();
    if (E.isLeft(opened)) throw new Error(opened.left.message);
    expect(opened.right.storage).toBe(storage);
    await opened.right.close();
    await rm(dataDir, { recursive: true, force: true });
  });
});
