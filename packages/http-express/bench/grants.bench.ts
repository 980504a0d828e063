/**
 * `pnpm bench` (grants part): what deciding by grants costs on a long list. GET /connections over 10,000
 * connections by a principal without a role whose 20 grants (one per region pattern) let it read every one
 * of them, against an admin's same request, in one run: both answers hold the same 10,000 connections, so the
 * difference is the decision alone (the grants compiled once per request, one linear-time glob match per grant and
 * connection). Target ≤ 1.2× the admin's CPU time per request. Results go to docs/benchmarks.md (section "grants").
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  machineLine,
  markdownTable,
  median,
  runAutocannon,
  sized,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import { loadConfig } from "@sdwan-connections/composition";
import { createInMemoryStorage } from "@sdwan-connections/core";
import { aConnection } from "@sdwan-connections/core/testing";
import * as E from "fp-ts/lib/Either.js";
import { pino } from "pino";
import { startService } from "../src/service.js";

const DURATION_S = Number(process.env["BENCH_DURATION_S"] ?? sized(2, 1));
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? sized(5, 1));
const REGIONS = 20;
const PER_REGION = sized(500, 10);
const USER = { name: "bench", password: "bench-password-1" };
const BASIC = `Basic ${Buffer.from(`${USER.name}:${USER.password}`).toString("base64")}`;
const BASE = "/rest/plugin/sdwan";
const region = (r: number) => `r${String(r).padStart(2, "0")}`;

const main = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-grants-"));
  const config = loadConfig({
    SDWAN_PORT: "0",
    SDWAN_DATA_DIR: dir,
    SDWAN_ADMIN_USER: USER.name,
    SDWAN_ADMIN_PASSWORD: USER.password,
  });
  if (E.isLeft(config)) throw new Error(config.left);
  const storage = createInMemoryStorage();
  const started = await startService(config.right, {
    logDestination: pino.destination({ dest: "/dev/null", sync: false }),
    storage,
  })();
  if (E.isLeft(started)) throw new Error(started.left);
  const service = started.right;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${service.url}${BASE}${path}`, {
      method,
      headers: { authorization: BASIC, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  try {
    const aliases = Array.from(
      { length: REGIONS * PER_REGION },
      (_, i) => `${region(Math.floor(i / PER_REGION))}-site-${String(i % PER_REGION).padStart(4, "0")}`,
    );
    // Seeded straight into the store: 10,000 adds over HTTP would only slow the start.
    for (const alias of aliases) {
      const inserted = await storage.repository.insert(aConnection({ alias }))();
      if (E.isLeft(inserted)) throw new Error(`seeding failed: ${inserted.left._tag}`);
    }
    const made = await call("POST", "/tokens", {
      name: "regions",
      expiresInDays: 1,
      grants: Array.from({ length: REGIONS }, (_, r) => ({ pattern: `${region(r)}-*`, verb: "read" })),
    });
    if (made.status !== 201) throw new Error(`token: ${made.status}`);
    const { token } = (await made.json()) as { token: string };
    const targets = [
      { label: "GET /connections (10,000), admin", headers: { authorization: BASIC } },
      { label: "GET /connections (10,000), principal with 20 grants", headers: { authorization: `Bearer ${token}` } },
    ];
    const url = `${service.url}${BASE}/connections`;
    const bodies = await Promise.all(targets.map(async ({ headers }) => (await fetch(url, { headers })).text()));
    if (bodies[0] !== bodies[1]) throw new Error("the two answers differ: the grants do not cover every connection");

    for (const target of targets) await runAutocannon(url, { headers: target.headers, connections: 4, seconds: 1 });
    const rps = targets.map((): number[] => []);
    const cpuUs = targets.map((): number[] => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const cpu = process.cpuUsage();
        const summary = await runAutocannon(url, {
          headers: targets[i]?.headers ?? {},
          connections: 4,
          seconds: DURATION_S,
        });
        const used = process.cpuUsage(cpu);
        if (summary.errors > 0 || summary.non2xx > 0) throw new Error(`${targets[i]?.label}: non-2xx answers`);
        cpuUs[i]?.push((used.user + used.system) / summary.requests.total);
        rps[i]?.push(summary.requests.average);
        process.stdout.write(
          `round ${round + 1} ${targets[i]?.label}: ${summary.requests.average} req/s, ${Math.round(cpuUs[i]?.at(-1) ?? 0)} µs CPU/req\n`,
        );
      }
    }
    const [adminRps, grantedRps] = rps.map(median) as [number, number];
    const [adminCpu, grantedCpu] = cpuUs.map(median) as [number, number];
    const ratio = grantedCpu / adminCpu;
    await writeBenchmarkSection(
      "grants",
      [
        "## http-express: lists filtered by grants",
        "",
        `\`pnpm --filter @sdwan-connections/http-express bench\` (\`packages/http-express/bench/grants.bench.ts\`). ${await machineLine()}, load average ${loadavg()[0]?.toFixed(1)} at the end.`,
        `The service with the in-memory store and ${aliases.length} connections (${REGIONS} regions of ${PER_REGION}). The principal is a service`,
        `token without a role whose ${REGIONS} grants (\`r00-*\` … \`r19-*\`, read) cover every connection, so both answers are the same`,
        "bytes and the difference is the decision: the grants compiled into one glob set per verb once per request (no regular expression), then",
        `one test per connection. autocannon in a child process, 4 connections, ${DURATION_S} s per run, ${ROUNDS} interleaved rounds, medians;`,
        "the target is judged on the service's CPU time per request, which other load on the machine barely moves.",
        "",
        markdownTable(
          ["Row", "Measure", "Compared"],
          [
            [targets[0]?.label ?? "", `${adminRps.toFixed(1)} req/s, ${Math.round(adminCpu)} µs CPU/req`, "baseline"],
            [
              targets[1]?.label ?? "",
              `${grantedRps.toFixed(1)} req/s, ${Math.round(grantedCpu)} µs CPU/req`,
              `**${ratio.toFixed(2)}×** the admin's CPU per request (target ≤ 1.2×): **${ratio <= 1.2 ? "met" : "missed"}**; by req/s ${(adminRps / grantedRps).toFixed(2)}× slower`,
            ],
          ],
        ),
      ].join("\n"),
    );
  } finally {
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
