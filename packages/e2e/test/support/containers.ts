import { randomBytes } from "node:crypto";
import {
  GenericContainer,
  getContainerRuntimeClient,
  type StartedTestContainer,
  type WaitStrategy,
} from "testcontainers";
import { freePort } from "@sdwan-connections/storage-postgres/testing";
import { SERVICE_IMAGE } from "./image.js";

/**
 * Containers for the end-to-end suite. Every container runs in host network
 * mode on a port picked here (the air-gapped CI daemon has no bridge network),
 * so the same code runs on that daemon and on a laptop's Docker.
 */

const SETUP_HINT =
  "run `.ci/containers.sh up && set -a && . .ci/containers.env && set +a` first, or use a machine with Docker";

/** Fails with one line when no container runtime answers (these tests never skip). */
export const assertContainerRuntime = async (): Promise<void> => {
  try {
    const client = await getContainerRuntimeClient();
    await client.info;
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    throw new Error(`e2e: no container runtime (${why}); ${SETUP_HINT}.`);
  }
};

// PostgreSQL comes from storage-postgres's testing entry, shared with its own and http-express's container tests.
export { freePort, startPostgres, type StartedPostgres } from "@sdwan-connections/storage-postgres/testing";

type DockerodeContainer = Parameters<WaitStrategy["waitUntilReady"]>[0];

/** Strips Docker's 8-byte stream headers from a non-TTY log buffer. */
const demux = (raw: Buffer): string => {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= raw.length && (raw[offset] === 1 || raw[offset] === 2) && raw[offset + 1] === 0) {
    const size = raw.readUInt32BE(offset + 4);
    parts.push(raw.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return parts.length > 0 ? Buffer.concat(parts).toString("utf8") : raw.toString("utf8");
};

export const containerLogs = async (container: DockerodeContainer, tail?: number): Promise<string> => {
  const raw = (await container.logs({
    stdout: true,
    stderr: true,
    follow: false,
    ...(tail === undefined ? {} : { tail }),
  })) as unknown;
  return Buffer.isBuffer(raw) ? demux(raw) : String(raw);
};

/**
 * Ready when `GET /readyz` answers 200 on the service's port; fails at once,
 * with the container's last log lines, if the container exits first (a bad
 * configuration stops the service with one line naming the variable).
 */
class ServiceReady implements WaitStrategy {
  private startupTimeoutMs = 60_000;
  private startupTimeoutSet = false;

  constructor(private readonly url: string) {}

  withStartupTimeout(startupTimeoutMs: number): this {
    this.startupTimeoutMs = startupTimeoutMs;
    this.startupTimeoutSet = true;
    return this;
  }

  isStartupTimeoutSet(): boolean {
    return this.startupTimeoutSet;
  }

  getStartupTimeout(): number {
    return this.startupTimeoutMs;
  }

  async waitUntilReady(container: DockerodeContainer): Promise<void> {
    const deadline = Date.now() + this.startupTimeoutMs;
    for (;;) {
      const state = (await container.inspect()).State;
      if (!state.Running) {
        const logs = await containerLogs(container, 20).catch(() => "(no logs)");
        throw new Error(`service container exited (code ${state.ExitCode}) before it was ready:\n${logs.trimEnd()}`);
      }
      const status = await fetch(this.url, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return;
      if (Date.now() > deadline)
        throw new Error(
          `service not ready after ${this.startupTimeoutMs} ms (${this.url} answered ${status || "nothing"})`,
        );
      await new Promise((done) => setTimeout(done, 200));
    }
  }
}

export interface StartedService {
  readonly container: StartedTestContainer;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Everything the container wrote to stdout and stderr so far. */
  logs(): Promise<string>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  readonly env: Readonly<Record<string, string>>;
  /** Host directory bind-mounted on /data. */
  readonly dataDir?: string;
  readonly name?: string;
  /** `uid:gid` to run as instead of the image's user (uid 1000). */
  readonly user?: string | undefined;
}

/** Starts the service image on a free port of the host network and waits until /readyz says 200. */
export const startService = async (options: ServiceOptions): Promise<StartedService> => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  let builder = new GenericContainer(SERVICE_IMAGE)
    .withNetworkMode("host")
    .withEnvironment({ SDWAN_HOST: "127.0.0.1", SDWAN_PORT: String(port), ...options.env })
    .withAutoRemove(true)
    .withLabels({ "sdwan.test": "e2e" })
    .withWaitStrategy(new ServiceReady(`${origin}/readyz`))
    .withStartupTimeout(60_000);
  if (options.dataDir !== undefined)
    builder = builder.withBindMounts([{ source: options.dataDir, target: "/data", mode: "rw" }]);
  if (options.user !== undefined) builder = builder.withUser(options.user);
  if (options.name !== undefined) builder = builder.withName(`${options.name}-${randomBytes(4).toString("hex")}`);
  const container = await builder.start();
  const client = await getContainerRuntimeClient();
  return {
    container,
    port,
    origin,
    logs: async () => containerLogs(client.container.getById(container.getId())),
    stop: async () => {
      await container.stop({ timeout: 10_000 });
    },
  };
};
