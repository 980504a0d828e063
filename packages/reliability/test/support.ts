import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportFigures, startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import {
  loadSampleDataset,
  startOrchestratorSimulator,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";

export const BASE = "/rest/plugin/sdwan";
export const ADMIN = { SDWAN_ADMIN_USER: "admin", SDWAN_ADMIN_PASSWORD: "admin-password-1" };
export const AUTHORIZATION = `Basic ${Buffer.from("admin:admin-password-1").toString("base64")}`;

export const makeDataDir = () => mkdtemp(join(tmpdir(), "sdwan-reliability-"));
export const removeDir = (dir: string) => rm(dir, { recursive: true, force: true });

/** This test's figures, for its section of docs/reliability.md ("the figures of the last run"; see `reportFigures`). */
export const report = (id: string, markdown: string) => reportFigures(`reliability:${id}`, markdown);

/** The service process on a fresh data directory, and the orchestrator simulator with its sample data. */
export interface World {
  readonly simulator: OrchestratorSimulator;
  readonly service: ServiceProcess;
  /** Stops the service (SIGTERM) and starts another on the same data directory. */
  restart(): Promise<ServiceProcess>;
  close(): Promise<void>;
}

export const startWorld = async (env: Record<string, string> = {}): Promise<World> => {
  const dir = await makeDataDir();
  const simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1", port: 0 });
  const start = () => startServiceProcess({ SDWAN_DATA_DIR: dir, ...ADMIN, ...env });
  let service = await start();
  return {
    simulator,
    get service() {
      return service;
    },
    restart: async () => {
      await service.stop();
      service = await start();
      return service;
    },
    close: async () => {
      await service.stop();
      await simulator.stop();
      await removeDir(dir);
    },
  };
};

/** Counts answers by status, for the report. */
export const tally = () => {
  const statuses = new Map<number, number>();
  return {
    statuses,
    add: (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1),
    toString: () =>
      [...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}: ${count}`)
        .join(", "),
  };
};
