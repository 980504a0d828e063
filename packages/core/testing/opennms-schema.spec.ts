import { describe, expect, it } from "vitest";
import { eventconfErrors, opennmsEventErrors, parseXml } from "./opennms-schema.js";

const EVENT_NS = "http://xmlns.opennms.org/xsd/event";
const event = (body: string, attributes = "") =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<event xmlns="${EVENT_NS}"${attributes}>${body}</event>`;
const MINIMAL = "<source>s</source><time>2026-11-25T20:00:00.000Z</time>";

describe("the OpenNMS event check (event.xsd)", () => {
  it("takes an event as OpenNMS documents it", () => {
    expect(
      opennmsEventErrors(
        event(
          `<uei>uei.opennms.org/sdwan/x</uei>${MINIMAL}` +
            `<parms><parm><parmName>alias</parmName><value type="string" encoding="text">a &amp; &#x1F6F0;</value></parm></parms>` +
            `<descr>d</descr><logmsg dest="logndisplay">m</logmsg><severity>Major</severity>` +
            `<alarm-data reduction-key="%uei%:%parm[alias]%" alarm-type="2" clear-key="k" auto-clean="false"/>`,
          ` uuid="1"`,
        ),
      ),
    ).toEqual([]);
  });

  it.each([
    ["no source", event("<time>2026-11-25T20:00:00Z</time>"), "<source> is missing"],
    ["no time", event("<source>s</source>"), "<time> is missing"],
    ["elements out of the schema's order", event(`<severity>Major</severity>${MINIMAL}`), "not allowed here"],
    ["an element twice", event(`${MINIMAL}<severity>Major</severity><severity>Minor</severity>`), "more than 1"],
    ["an element the schema does not have", event(`${MINIMAL}<apiKey>x</apiKey>`), "not allowed here"],
    ["an attribute the schema does not have", event(MINIMAL, ` key="x"`), "attribute key is not in the schema"],
    ["another namespace", MINIMAL.replace(/^/, `<event xmlns="urn:x">`) + "</event>", "is not in"],
    ["no namespace", `<event>${MINIMAL}</event>`, "is not in"],
    [
      "a parm without value",
      event(`${MINIMAL}<parms><parm><parmName>a</parmName></parm></parms>`),
      "<value> is missing",
    ],
    ["empty parms", event(`${MINIMAL}<parms></parms>`), "<parm> is missing"],
    [
      "a value type outside the schema's pattern",
      event(`${MINIMAL}<parms><parm><parmName>a</parmName><value type="json">1</value></parm></parms>`),
      'type="json"',
    ],
    ["alarm-data without reduction-key", event(`${MINIMAL}<alarm-data alarm-type="1"/>`), "reduction-key is missing"],
    ["alarm-type 0", event(`${MINIMAL}<alarm-data reduction-key="k" alarm-type="0"/>`), 'alarm-type="0"'],
    [
      "auto-clean not a boolean",
      event(`${MINIMAL}<alarm-data reduction-key="k" alarm-type="1" auto-clean="no"/>`),
      "auto-clean",
    ],
    ["a time OpenNMS cannot parse", event("<source>s</source><time>Wednesday 25 November</time>"), "not ISO 8601"],
    ["an unknown severity", event(`${MINIMAL}<severity>Bad</severity>`), "event/severity"],
    ["a bare ampersand", event(`<source>a & b</source><time>2026-11-25T20:00:00Z</time>`), "not well-formed"],
    ["an unknown entity", event(`<source>&nbsp;</source><time>2026-11-25T20:00:00Z</time>`), "not well-formed"],
    ['"]]>" in text', event(`<source>]]></source><time>2026-11-25T20:00:00Z</time>`), "not well-formed"],
    ["a control character", event(`<source>a\u0001</source><time>2026-11-25T20:00:00Z</time>`), "not well-formed"],
    [
      "a control character by reference",
      event(`<source>&#1;</source><time>2026-11-25T20:00:00Z</time>`),
      "not well-formed",
    ],
    ['"<" in an attribute', event(MINIMAL, ` uuid="<"`), "not well-formed"],
    ["a tag not closed", event(`<source>s</sourc><time>t</time>`), "not well-formed"],
    ["two roots", `${event(MINIMAL)}<event/>`, "not well-formed"],
    ["a comment with -- inside", event(`<!-- a -- b -->${MINIMAL}`), "not well-formed"],
    ["a comment not closed", event(`<!-- a ${MINIMAL}`), "not well-formed"],
    ["CDATA", event(`<source><![CDATA[s]]></source><time>2026-11-25T20:00:00Z</time>`), "not well-formed"],
  ])("refuses %s", (_name, document, error) => {
    expect(opennmsEventErrors(document).join("\n")).toContain(error);
  });

  it("skips comments, before, inside and after the root", () => {
    const document = `<!-- a --><event xmlns="${EVENT_NS}"><!-- b -->${MINIMAL}<!-- c --></event><!-- d -->`;
    expect(opennmsEventErrors(document)).toEqual([]);
  });

  it("reads entities and character references back", () => {
    expect(parseXml(`<a b="&quot;&apos;&lt;">&amp;&gt;&#65;&#x42;</a>`)).toEqual({
      name: "a",
      attributes: { b: `"'<` },
      children: [],
      text: "&>AB",
    });
  });
});

describe("the eventconf check (eventconf.xsd)", () => {
  const conf = (body: string) => `<events xmlns="http://xmlns.opennms.org/xsd/eventconf">${body}</events>`;
  const EVENT =
    `<uei>u</uei><event-label>l</event-label><descr>d</descr><logmsg dest="logndisplay">m</logmsg>` +
    `<severity>Major</severity>`;

  it("takes an event definition with alarm data", () => {
    expect(eventconfErrors(conf(`<event>${EVENT}<alarm-data reduction-key="k" alarm-type="1"/></event>`))).toEqual([]);
  });

  it.each([
    [
      "an event without a label",
      conf(`<event>${EVENT.replace("<event-label>l</event-label>", "")}</event>`),
      "0 <event-label>",
    ],
    ["two descriptions", conf(`<event>${EVENT}<descr>again</descr></event>`), "2 <descr>"],
    [
      "a logmsg dest outside the pattern",
      conf(`<event>${EVENT.replace("logndisplay", "everywhere")}</event>`),
      "dest=",
    ],
    ["another namespace", `<events xmlns="urn:x"><event>${EVENT}</event></events>`, "is not in"],
  ])("refuses %s", (_name, document, error) => {
    expect(eventconfErrors(document).join("\n")).toContain(error);
  });
});
