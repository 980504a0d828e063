import { describe, expect, it } from "vitest";
import { OPENNMS_EVENT_SOURCE, OPENNMS_UEIS, opennmsEvents, opennmsPing } from "./opennms-event.js";
import type { CloudEvent } from "./events.js";

import {
  aCloudEvent,
  expandOpennmsKey,
  opennmsEventErrors,
  readOpennmsEvent,
  type CloudEventSource,
  type OpennmsEventRead,
} from "../../testing/index.js";

const URL = "https://vco.example.net/";
const UEI = (name: string) => `uei.opennms.org/sdwan/${name}`;

/** `event` telling `orchestratorUrl` (null: not known), as an entry that kept it makes it. */
const withUrl = (event: CloudEvent, orchestratorUrl: string | null): CloudEvent => {
  const { orchestratorUrl: _told, ...data } = event.data;
  return { ...event, data: orchestratorUrl === null ? data : { ...data, orchestratorUrl } } as CloudEvent;
};

/** The events OpenNMS would take in for `event` (telling `orchestratorUrl`), in order, each checked against event.xsd first. */
const sentAll = (event: CloudEvent, orchestratorUrl: string | null = URL) =>
  opennmsEvents(withUrl(event, orchestratorUrl)).map(({ uuid, xml }) => {
    expect(opennmsEventErrors(xml)).toEqual([]);
    const read = readOpennmsEvent(xml);
    expect(read.uuid).toBe(uuid);
    return read;
  });
/** The one event OpenNMS would take in for `event`. */
const sent = (event: CloudEvent, orchestratorUrl: string | null = URL) => {
  const all = sentAll(event, orchestratorUrl);
  expect(all).toHaveLength(1);
  return all[0]!;
};
const reductionKeyOf = (read: OpennmsEventRead) => expandOpennmsKey(read.alarmData!["reduction-key"]!, read);
const clearKeyOf = (read: OpennmsEventRead) => {
  const key = read.alarmData!["clear-key"];
  return key === undefined ? undefined : expandOpennmsKey(key, read);
};

describe("the OpenNMS event of each event type (SPEC §9, kind: opennms)", () => {
  it.each<[string, CloudEventSource, string, string, string, string | undefined, Record<string, string>]>([
    [
      "a connection found invalid raises connectionInvalid",
      { action: "health-change", from: "valid", to: "invalid", reason: "the orchestrator refused the key" },
      "connectionInvalid",
      "Major",
      "1",
      undefined,
      { reason: "the orchestrator refused the key" },
    ],
    [
      "a connection found unreachable raises connectionUnreachable",
      { action: "health-change", from: "unknown", to: "unreachable", reason: "timed out after 10 s" },
      "connectionUnreachable",
      "Minor",
      "1",
      undefined,
      { reason: "timed out after 10 s" },
    ],
    [
      "an invalid connection found valid clears connectionInvalid",
      { action: "health-change", from: "invalid", to: "valid" },
      "connectionValid",
      "Normal",
      "2",
      `${UEI("connectionInvalid")}:lab`,
      { problemUei: UEI("connectionInvalid") },
    ],
    [
      "an unreachable connection found valid clears connectionUnreachable",
      { action: "health-change", from: "unreachable", to: "valid" },
      "connectionValid",
      "Normal",
      "2",
      `${UEI("connectionUnreachable")}:lab`,
      { problemUei: UEI("connectionUnreachable") },
    ],
    [
      "a key-expiry warning raises keyExpiring with the days left",
      { action: "key-expiring", daysLeft: 7 },
      "keyExpiring",
      "Warning",
      "3",
      undefined,
      { daysLeft: "7", reason: "the key expires at 2026-12-02T20:00:00.000Z (declared)" },
    ],
    [
      "an expired key raises keyExpired",
      { action: "key-expired", daysLeft: 0 },
      "keyExpired",
      "Major",
      "3",
      undefined,
      { daysLeft: "0", reason: "the key expires at 2026-11-25T20:00:00.000Z (declared)" },
    ],
  ])("%s", (_name, source, name, severity, alarmType, clearKey, parms) => {
    const event = aCloudEvent(source);
    const read = sent(event);
    expect(read).toMatchObject({
      uuid: event.id,
      uei: UEI(name),
      source: OPENNMS_EVENT_SOURCE,
      time: event.time,
      severity,
    });
    expect(read.parms).toEqual({ alias: "lab", orchestratorUrl: URL, ...parms });
    expect(read.alarmData).toMatchObject({ "reduction-key": "%uei%:%parm[alias]%", "alarm-type": alarmType });
    expect(reductionKeyOf(read)).toBe(`${UEI(name)}:lab`);
    expect(clearKeyOf(read)).toBe(clearKey);
    expect(OPENNMS_UEIS).toContain(read.uei);
  });

  it.each<[string, CloudEventSource]>([
    ["an add", { action: "add" }],
    ["an update", { action: "update" }],
    ["a first check that finds the connection valid", { action: "health-change", from: "unknown", to: "valid" }],
    ["a change to unknown", { action: "health-change", from: "invalid", to: "unknown" }],
  ])("sends nothing for %s: it raises and clears nothing", (_name, source) => {
    expect(opennmsEvents(withUrl(aCloudEvent(source), URL))).toEqual([]);
  });

  it.each<[string, "invalid" | "unreachable", "invalid" | "unreachable"]>([
    ["invalid to unreachable", "invalid", "unreachable"],
    ["unreachable to invalid", "unreachable", "invalid"],
  ])("a connection gone from %s clears the earlier problem, then raises the new one", (_name, from, to) => {
    const event = aCloudEvent({ action: "health-change", from, to, reason: "DNS" });
    const [clear, raise, ...more] = sentAll(event);
    expect(more).toEqual([]);
    const earlier = UEI(from === "invalid" ? "connectionInvalid" : "connectionUnreachable");
    const later = UEI(to === "invalid" ? "connectionInvalid" : "connectionUnreachable");
    expect(clear).toMatchObject({ uuid: event.id, uei: UEI("connectionProblemChanged"), severity: "Normal" });
    expect(clear!.parms).toEqual({ alias: "lab", orchestratorUrl: URL, reason: `now ${to}`, problemUei: earlier });
    expect(clear!.alarmData?.["alarm-type"]).toBe("2");
    expect(clearKeyOf(clear!)).toBe(`${earlier}:lab`);
    expect(raise).toMatchObject({ uuid: `${event.id}-2`, uei: later, parms: { reason: "DNS" } });
    expect(raise!.alarmData?.["alarm-type"]).toBe("1");
    expect(reductionKeyOf(raise!)).toBe(`${later}:lab`);
  });

  it("a deletion clears every alarm the connection can have: one connectionDeleted per alarm, each its own uuid", () => {
    const event = aCloudEvent({ action: "delete", actor: "ops" });
    const cleared = sentAll(event);
    const alarms = ["connectionInvalid", "connectionUnreachable", "keyExpiring", "keyExpired", "keyRenewalFailed"].map(
      UEI,
    );
    expect(cleared.map((read) => read.uuid)).toEqual([
      event.id,
      `${event.id}-2`,
      `${event.id}-3`,
      `${event.id}-4`,
      `${event.id}-5`,
    ]);
    for (const [index, read] of cleared.entries()) {
      expect(read).toMatchObject({ uei: UEI("connectionDeleted"), severity: "Normal", time: event.time });
      expect(read.parms).toEqual({
        alias: "lab",
        orchestratorUrl: URL,
        reason: "deleted by ops",
        problemUei: alarms[index],
      });
      expect(read.alarmData).toMatchObject({ "reduction-key": "%uei%:%parm[alias]%", "alarm-type": "2" });
      expect(clearKeyOf(read)).toBe(`${alarms[index]}:lab`);
    }
    // What it clears is exactly what the problems and warnings raise.
    const raised = (
      [
        { action: "health-change", from: "valid", to: "invalid" },
        { action: "health-change", from: "valid", to: "unreachable" },
        { action: "key-expiring", daysLeft: 7 },
        { action: "key-expired", daysLeft: 0 },
        { action: "key-renewal-failed", reason: "refused" },
      ] as const
    ).map((source) => reductionKeyOf(sent(aCloudEvent(source))));
    expect(cleared.map(clearKeyOf)).toEqual(raised);
  });

  it("keeps one alarm per connection: each problem's key names its alias, and the resolution clears exactly it", () => {
    for (const problem of ["invalid", "unreachable"] as const) {
      const raised = ["lab", "edge-1"].map((alias) =>
        reductionKeyOf(sent(aCloudEvent({ action: "health-change", alias, from: "valid", to: problem }))),
      );
      const cleared = ["lab", "edge-1"].map((alias) =>
        clearKeyOf(sent(aCloudEvent({ action: "health-change", alias, from: problem, to: "valid" }))),
      );
      expect(new Set(raised).size).toBe(2);
      expect(cleared).toEqual(raised);
    }
  });

  it("leaves orchestratorUrl out when it is not known", () => {
    for (const read of sentAll(aCloudEvent({ action: "delete" }), null))
      expect(read.parms).not.toHaveProperty("orchestratorUrl");
  });

  it("takes orchestratorUrl from the event (the audit entry's, as it was), never from elsewhere", () => {
    for (const action of ["delete", "key-expired"] as const) {
      const event = aCloudEvent({ action, daysLeft: 0, orchestratorUrl: "https://gone.example/" });
      expect(event.data.orchestratorUrl).toBe("https://gone.example/");
      for (const { xml } of opennmsEvents(event))
        expect(readOpennmsEvent(xml).parms["orchestratorUrl"]).toBe("https://gone.example/");
    }
  });
});

describe("the ping (POST /webhooks/{id}/ping, kind opennms)", () => {
  it("is an OpenNMS event of a UEI the eventconf file defines, Normal, naming the webhook, with no alarm data", () => {
    const { uuid, xml } = opennmsPing("2026-11-25T20:00:00.000Z-000001145e", new Date("2026-11-25T20:00:00Z"), "w1");
    expect(opennmsEventErrors(xml)).toEqual([]);
    const read = readOpennmsEvent(xml);
    expect(read).toMatchObject({ uuid, uei: UEI("ping"), severity: "Normal", parms: { webhookId: "w1" } });
    expect(read.alarmData).toBeUndefined();
    expect(OPENNMS_UEIS).toContain(UEI("ping"));
  });
});

describe("escaping what the event carries", () => {
  const HOSTILE = `<b>&amp; ]]> "double" 'single' </value></parm><parm><parmName>apiKey</parmName><value>x ünïcødé 🛰️ 東京`;

  it("keeps hostile reasons, aliases and URLs as text: the document stays an OpenNMS event with the same parms", () => {
    const event = { ...aCloudEvent({ action: "health-change", from: "valid", to: "invalid", reason: HOSTILE }) };
    const read = sent({ ...event, subject: HOSTILE, id: `${event.id}"/><x a="` }, HOSTILE);
    expect(read.parms).toEqual({ alias: HOSTILE, orchestratorUrl: HOSTILE, reason: HOSTILE });
    expect(read.uuid).toBe(`${event.id}"/><x a="`);
    expect(reductionKeyOf(read)).toBe(`${UEI("connectionInvalid")}:${HOSTILE}`);
  });

  it("replaces the characters XML 1.0 cannot carry (control characters, lone surrogates) with U+FFFD", () => {
    const reason = "a\u0000b\u0007c\u001Bd\uD800e\uDC00f\uFFFEg\ttab\nline";
    const read = sent(aCloudEvent({ action: "health-change", from: "valid", to: "unreachable", reason }));
    expect(read.parms["reason"]).toBe("a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\ttab\nline");
  });
});

describe("never a key", () => {
  const KEY = "sk-live-0123456789abcdef-SECRET";

  it("writes only the fields it knows: a key smuggled into an event (extra attributes, data) never appears", () => {
    const sources: CloudEventSource[] = [
      { action: "health-change", from: "valid", to: "invalid" },
      { action: "health-change", from: "unreachable", to: "valid" },
      { action: "health-change", from: "unreachable", to: "invalid" },
      { action: "key-expiring", daysLeft: 30 },
      { action: "key-expired", daysLeft: -1 },
      { action: "delete" },
    ];
    for (const source of sources) {
      const event = aCloudEvent(source);
      const smuggled = { ...event, apiKey: KEY, data: { ...event.data, apiKey: KEY } } as unknown as CloudEvent;
      const events = opennmsEvents(withUrl(smuggled, URL));
      expect(events).not.toEqual([]);
      for (const { xml } of events) {
        expect(xml).not.toContain(KEY);
        expect(xml).not.toMatch(/apiKey/i);
      }
    }
  });
});
