import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { parseXml, type OpennmsEventRead } from "@sdwan-connections/core/testing";
import { loadSampleDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ADMIN, BASE, captureLogs, client, makeDataDir, startService, testConfig } from "./harness.js";
import { startOpennms, type OpennmsAlarm } from "./opennms-receiver.js";
import { writeTranscripts } from "./transcripts.js";

const KEY = "sample-partner-key-1";
const DAY_MS = 24 * 3600 * 1000;
const UEI = (name: string) => `uei.opennms.org/sdwan/${name}`;

/** The eventconf file the page installs: OpenNMS shows each event by its log message, parms expanded. */
const EVENTCONF = parseXml(
  readFileSync(new URL("../../deploy/opennms/sdwan-connections.events.xml", import.meta.url), "utf8"),
);
const logMessage = (event: OpennmsEventRead): string => {
  const definition = EVENTCONF.children.find((one) => one.children.some((child) => child.text === event.uei));
  const logmsg = definition?.children.find((child) => child.name === "logmsg")?.text ?? "(no event definition)";
  return logmsg.replace(/%parm\[([^\]]+)\]%/g, (_whole, name: string) => event.parms[name] ?? "");
};

afterEach(() => {
  vi.useRealTimers();
});

// Issue 38: an OpenNMS admin following docs/opennms.md on a stock OpenNMS (REST over http on 8980, admin/admin) got
// no alarm: http was refused, background health was off by default, the ping's UEI was not in the eventconf file.
describe("docs/opennms.md as written, against an OpenNMS-like REST API on loopback", { timeout: 120_000 }, () => {
  it("with the defaults and the page's SDWAN_WEBHOOK_ALLOW_HTTP only: a ping shows, a key warning, an alarm raised when the key is refused and cleared when it works again", async () => {
    await using opennms = await startOpennms();
    await using simulator = await startOrchestratorSimulator({
      data: await loadSampleDataset(),
      host: "127.0.0.1",
      port: 0,
    });
    const dir = await makeDataDir();
    // The defaults (background health every 300 s among them), but for the one variable the page names.
    const config = testConfig({
      SDWAN_DATA_DIR: dir,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_HEALTH_INTERVAL_S: undefined,
      SDWAN_WEBHOOK_ALLOW_HTTP: "127.0.0.1",
    });
    expect(config.healthIntervalMs).toBe(300_000);
    await using service = Object.assign(await startService(config, { logDestination: captureLogs().stream }), {
      [Symbol.asyncDispose]: async () => {
        await service.close();
        await rm(dir, { recursive: true, force: true });
      },
    });
    const call = client(service.url);
    const monitor = service.composition.service.health.monitor;
    expect(monitor).toBeDefined();

    // The transcripts show the page's hosts and ports: the service on 8990, OpenNMS on 8980, the orchestrator by name.
    const shown = (text: string) =>
      text
        .replaceAll(service.url, "http://127.0.0.1:8990")
        .replaceAll(`127.0.0.1:${opennms.port}`, "127.0.0.1:8980")
        .replaceAll(simulator.url, "https://vco.example.net/")
        .replace(/"secret":"whsec_[^"]+"/, '"secret":"whsec_…"');
    const transcripts = new Map<string, string>();
    const lines: string[] = [];
    const curl = async (method: string, path: string, body?: unknown) => {
      const reply = await call(method, path, body === undefined ? {} : { body });
      const data =
        body === undefined ? "" : ` \\\n    -H 'Content-Type: application/json' -d '${JSON.stringify(body)}'`;
      lines.push(
        `$ curl -u admin:… ${method === "GET" ? "" : `-X ${method} `}${service.url}${path}${data}`,
        `${reply.status}${reply.text === "" ? "" : ` ${reply.text}`}`,
      );
      return reply;
    };
    const alarmList = (alarms: readonly OpennmsAlarm[]) => [
      "# OpenNMS, Alarms (reduction key, severity, count):",
      ...alarms.map((alarm) => `#   ${alarm.reductionKey}  ${alarm.severity}  ${alarm.count}`),
    ];
    const eventList = (from: number) => [
      "# OpenNMS, Events (UEI, severity, log message):",
      ...opennms.events.slice(from).map((event) => `#   ${event.uei}  ${event.severity}  ${logMessage(event)}`),
    ];
    const take = (name: string) => {
      transcripts.set(name, shown(lines.join("\n")));
      lines.length = 0;
    };
    const round = async () => {
      await monitor!.round();
      await call("GET", `${BASE}/audit?limit=1`); // the round's entries recorded
    };

    // Step 2: the webhook, with OpenNMS's default admin.
    const created = await curl("POST", `${BASE}/webhooks`, {
      url: opennms.url,
      kind: "opennms",
      username: "admin",
      password: "admin",
    });
    expect(created.status).toBe(201);
    const webhook = created.json<{ id: string }>();
    take("create");

    // Check that it works: the ping is in OpenNMS's event list.
    const pinged = await curl("POST", `${BASE}/webhooks/${webhook.id}/ping`);
    expect(pinged.status).toBe(200);
    expect(pinged.json()).toMatchObject({ status: 202 });
    expect(opennms.events.map((event) => event.uei)).toEqual([UEI("ping")]);
    lines.push(...eventList(0));
    take("ping");

    // A connection whose key expires in 20 days: the first background round warns (30 days before).
    const expiresAt = new Date(Date.now() + 20 * DAY_MS).toISOString();
    expect(
      (
        await curl("POST", `${BASE}/connections`, {
          alias: "lab",
          orchestratorUrl: simulator.url,
          apiKey: KEY,
          apiKeyExpiresAt: expiresAt,
        })
      ).status,
    ).toBe(200);
    lines.length = 0; // the add is the README's; the page shows what OpenNMS gets
    await round();
    await vi.waitFor(() => expect(opennms.events).toHaveLength(2), { timeout: 10_000, interval: 50 });
    expect(opennms.events[1]).toMatchObject({
      uei: UEI("keyExpiring"),
      severity: "Warning",
      parms: { alias: "lab", orchestratorUrl: simulator.url, daysLeft: "20" },
    });
    lines.push(...eventList(1), ...alarmList(opennms.alarms()));
    take("key-expiring");

    // Each later round runs in the next 300 s interval (the one the schedule would run it in). The clock jumps only
    // once every delivery is settled: a jump past a claim's lease in the middle of its attempt would let it be
    // claimed again.
    const settled = () =>
      vi.waitFor(
        async () => {
          const deliveries = (await call("GET", `${BASE}/webhooks/${webhook.id}/deliveries?limit=100`)).json<
            { status: string }[]
          >();
          expect(deliveries.filter(({ status }) => status === "pending")).toEqual([]);
        },
        { timeout: 10_000, interval: 50 },
      );
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    const nextInterval = async () => {
      await settled();
      vi.setSystemTime(Date.now() + 300_000);
      await round();
    };

    // The orchestrator refuses the key: the next round raises the alarm.
    simulator.setFault(KEY, { kind: "bareStatus", status: 401 });
    await nextInterval();
    await vi.waitFor(() => expect(opennms.events).toHaveLength(3), { timeout: 10_000, interval: 50 });
    expect(opennms.events[2]).toMatchObject({
      uei: UEI("connectionInvalid"),
      severity: "Major",
      parms: { alias: "lab", orchestratorUrl: simulator.url },
    });
    expect(opennms.alarms()).toContainEqual(
      expect.objectContaining({ reductionKey: `${UEI("connectionInvalid")}:lab`, severity: "Major", cleared: false }),
    );
    lines.push(...eventList(2), ...alarmList(opennms.alarms()));
    take("refused");

    // The key works again: the next round clears it.
    simulator.setFault(KEY, undefined);
    await nextInterval();
    await vi.waitFor(() => expect(opennms.events).toHaveLength(4), { timeout: 10_000, interval: 50 });
    expect(opennms.events[3]).toMatchObject({
      uei: UEI("connectionValid"),
      parms: { alias: "lab", problemUei: UEI("connectionInvalid") },
    });
    expect(opennms.alarms()).toEqual([
      expect.objectContaining({ reductionKey: `${UEI("keyExpiring")}:lab`, severity: "Warning", cleared: false }),
      expect.objectContaining({ reductionKey: `${UEI("connectionInvalid")}:lab`, severity: "Cleared", cleared: true }),
    ]);
    lines.push(...eventList(3), ...alarmList(opennms.alarms()));
    take("works-again");

    // Every document was an OpenNMS event as event.xsd defines it, with OpenNMS's credentials, and each came once.
    await settled();
    expect(opennms.refused).toEqual([]);
    expect(opennms.events.map((event) => event.uei)).toEqual(
      ["ping", "keyExpiring", "connectionInvalid", "connectionValid"].map(UEI),
    );
    // A page is a plain-text file: no secret in it (the signing secret is shown once, to the caller only).
    const page = [...transcripts.values()].join("\n");
    expect(page).not.toContain(created.json<{ secret: string }>().secret);
    expect(page).not.toContain(ADMIN.password);
    await writeTranscripts("opennms.md", transcripts);
  });
});
