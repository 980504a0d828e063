import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OPENNMS_UEIS, opennmsEvents, opennmsPing } from "@sdwan-connections/core";
import {
  aCloudEvent,
  eventconfErrors,
  parseXml,
  readOpennmsEvent,
  type CloudEventSource,
  type XmlElement,
} from "@sdwan-connections/core/testing";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "./support/kustomize.js";

const FILE = readFileSync(join(PACKAGE_ROOT, "opennms/sdwan-connections.events.xml"), "utf8");
const DOC = readFileSync(join(PACKAGE_ROOT, "../../docs/opennms.md"), "utf8");

/** One event of each kind the encoder sends, so every UEI is met (the ping's apart). */
const SOURCES: readonly CloudEventSource[] = [
  { action: "health-change", from: "valid", to: "invalid", reason: "refused" },
  { action: "health-change", from: "valid", to: "unreachable", reason: "timed out" },
  { action: "health-change", from: "invalid", to: "valid" },
  { action: "health-change", from: "unreachable", to: "valid" },
  { action: "health-change", from: "invalid", to: "unreachable", reason: "timed out" },
  { action: "key-expiring", daysLeft: 7 },
  { action: "key-expired", daysLeft: 0 },
  { action: "key-renewal-failed", reason: "the key lacks the right to renew API keys" },
  { action: "delete" },
];
const SENT = [
  ...SOURCES.flatMap((source) =>
    opennmsEvents(aCloudEvent({ ...source, orchestratorUrl: "https://vco.example.net/" })).map(({ xml }) =>
      readOpennmsEvent(xml),
    ),
  ),
  readOpennmsEvent(opennmsPing("2026-11-25T20:00:00.000Z-000001145e", new Date(), "b7e3c1d2").xml),
];

const definitions = (): readonly XmlElement[] => parseXml(FILE).children;
const childText = (event: XmlElement, name: string) => event.children.find((child) => child.name === name)?.text;
const definitionOf = (uei: string | undefined) => definitions().find((event) => childText(event, "uei") === uei);

describe("the OpenNMS eventconf file (sdwan-connections.events.xml)", () => {
  it("is an eventconf file as OpenNMS's eventconf.xsd defines it", () => {
    expect(eventconfErrors(FILE)).toEqual([]);
  });

  it("defines every UEI the encoder sends, once each, and no other", () => {
    const defined = definitions().map((event) => childText(event, "uei"));
    expect([...defined].sort()).toEqual([...OPENNMS_UEIS].sort());
    expect(new Set(SENT.map((event) => event.uei))).toEqual(new Set(OPENNMS_UEIS));
  });

  it.each(SENT.map((event) => [event.uei, event] as const))(
    "%s: the same severity and alarm data (reduction key, type, clear key) as the events sent",
    (_uei, sent) => {
      const definition = definitionOf(sent.uei);
      expect(childText(definition!, "severity")).toBe(sent.severity);
      expect(definition!.children.find((child) => child.name === "alarm-data")?.attributes).toEqual(sent.alarmData);
    },
  );

  it.each(SENT.map((event) => [event.uei, event] as const))(
    "%s: its texts and keys name only parms the events carry",
    (_uei, sent) => {
      const texts = definitionOf(sent.uei)!.children.flatMap((child) => [
        child.text,
        ...Object.values(child.attributes),
      ]);
      for (const [, parm] of texts.join(" ").matchAll(/%parm\[([^\]]+)\]%/g))
        expect(Object.keys(sent.parms)).toContain(parm);
    },
  );

  it("is the file docs/opennms.md's copy command copies, run from the repository's root", () => {
    const copied = /^cp (\S+) "\$OPENNMS_HOME\/etc\/events\/"(?: +#.*)?$/m.exec(DOC)?.[1] ?? "(no cp line)";
    expect(
      existsSync(join(PACKAGE_ROOT, "../..", copied)) && readFileSync(join(PACKAGE_ROOT, "../..", copied), "utf8"),
    ).toBe(FILE);
  });

  it("is what docs/opennms.md shows: its example is the event an invalid connection found valid gets", () => {
    const example = /```xml\n(<event [\s\S]*?<\/event>)\n```/.exec(DOC)?.[1];
    const xml = opennmsEvents(
      aCloudEvent({
        action: "health-change",
        from: "invalid",
        to: "valid",
        orchestratorUrl: "https://vco.example.net/",
      }),
    )[0]?.xml;
    const withoutUuid = (text: string | null | undefined) => text?.replace(/ uuid="[^"]*"/, "");
    expect(withoutUuid(`<?xml version="1.0" encoding="UTF-8"?>\n${example}\n`)).toBe(withoutUuid(xml));
  });
});
