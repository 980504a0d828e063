import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeBenchmarkSection } from "@sdwan-connections/bench-kit";

export const BASE = "/rest/plugin/sdwan";
export const ADMIN = { SDWAN_ADMIN_USER: "admin", SDWAN_ADMIN_PASSWORD: "admin-password-1" };
export const AUTHORIZATION = `Basic ${Buffer.from("admin:admin-password-1").toString("base64")}`;

export const makeDataDir = () => mkdtemp(join(tmpdir(), "sdwan-reliability-"));
export const removeDir = (dir: string) => rm(dir, { recursive: true, force: true });

const REPORT = new URL("../../../docs/reliability.md", import.meta.url).pathname;

/** Writes this test's figures into its section of docs/reliability.md ("the figures of the last run"). */
export const report = (id: string, markdown: string) => writeBenchmarkSection(`reliability:${id}`, markdown, REPORT);
