/**
 * Checks of what the `opennms` webhook kind sends, against OpenNMS's schemas, without OpenNMS or the network:
 * - `opennmsEventErrors`: an event as OpenNMS's `event.xsd` (the `<event>` its REST `POST /events` takes) defines it,
 *   for the elements and attributes that schema gives `<event>`, `<parms>` and `<alarm-data>`;
 * - `eventconfErrors`: an eventconf file as `eventconf.xsd` defines `<events>` and `<event>`.
 * The content models below are transcribed from those schemas, as OpenNMS publishes them (github.com/OpenNMS/opennms,
 * AGPL-3.0, so transcribed rather than copied in): `opennms-model/src/main/resources/xsds/event.xsd` at commit
 * 139b5d6c569cca3a95d4e65a15d22a051c9ba836 and `opennms-config-model/src/main/resources/xsds/eventconf.xsd` at commit
 * 006fae8e55ec3431d0c012432b84a08cfc882de4 (an installed OpenNMS has both in `share/xsds/`). A receiver standing in
 * for OpenNMS (a loopback recorder) can run them on every body it takes.
 */

/** An element as `parseXml` reads it: whitespace between child elements is dropped. */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  readonly text: string;
}

const NAME = /[A-Za-z_][A-Za-z0-9_.-]*(?::[A-Za-z_][A-Za-z0-9_.-]*)?/y;
const SPACE = /[ \t\r\n]*/y;
// Characters XML 1.0 allows (its `Char` production).
const XML_CHARS = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

const decode = (raw: string, where: string): string => {
  if (!XML_CHARS.test(raw)) throw new Error(`${where}: a character XML 1.0 does not allow`);
  return raw.replace(/&([^;]*);?/g, (whole, ref: string) => {
    const code = /^#x[0-9A-Fa-f]+$/.test(ref)
      ? parseInt(ref.slice(2), 16)
      : /^#[0-9]+$/.test(ref)
        ? parseInt(ref.slice(1), 10)
        : undefined;
    const value = code === undefined ? ENTITIES[ref] : String.fromCodePoint(code);
    if (!whole.endsWith(";") || value === undefined || !XML_CHARS.test(value)) {
      throw new Error(`${where}: a bare "&" or an unknown reference "${whole}"`);
    }
    return value;
  });
};

/**
 * Reads an XML document (an optional declaration and one element), strictly: well-formedness as XML 1.0 asks it,
 * for the subset these files use (comments, but no DTD, processing instructions or CDATA). Throws on anything else.
 */
export const parseXml = (document: string): XmlElement => {
  let at = 0;
  const fail = (message: string): never => {
    throw new Error(`at ${at}: ${message}`);
  };
  const match = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const found = pattern.exec(document);
    if (found === null) return undefined;
    at += found[0].length;
    return found[0];
  };
  const expect = (literal: string) =>
    document.startsWith(literal, at) ? (at += literal.length) : fail(`"${literal}" expected`);

  // A comment is skipped; XML forbids "--" inside one.
  const comment = (): boolean => {
    if (!document.startsWith("<!--", at)) return false;
    const end = document.indexOf("-->", at + 4);
    if (end < 0 || document.slice(at + 4, end).includes("--")) fail("a comment not closed, or with -- inside");
    decode(document.slice(at + 4, end).replace(/&/g, "&amp;"), "a comment");
    at = end + 3;
    return true;
  };
  const misc = () => {
    do match(SPACE);
    while (comment());
  };

  const element = (): XmlElement => {
    expect("<");
    const name = match(NAME) ?? fail("an element name expected");
    const attributes: Record<string, string> = {};
    for (;;) {
      const spaced = (match(SPACE) ?? "").length > 0;
      if (document.startsWith("/>", at) || document.startsWith(">", at)) break;
      if (!spaced) fail(`space expected between attributes of <${name}>`);
      const attribute = match(NAME) ?? fail(`an attribute name expected in <${name}>`);
      match(SPACE);
      expect("=");
      match(SPACE);
      const quote = document[at];
      if (quote !== '"' && quote !== "'") fail(`a quoted value expected for ${attribute}`);
      const end = document.indexOf(quote as string, at + 1);
      if (end < 0) fail(`${attribute}: the value is not closed`);
      const raw = document.slice(at + 1, end);
      if (raw.includes("<")) fail(`${attribute}: "<" in an attribute value`);
      if (attribute in attributes) fail(`<${name}> has ${attribute} twice`);
      attributes[attribute] = decode(raw, `<${name} ${attribute}>`);
      at = end + 1;
    }
    if (document.startsWith("/>", at)) {
      at += 2;
      return { name, attributes, children: [], text: "" };
    }
    expect(">");
    const children: XmlElement[] = [];
    let text = "";
    for (;;) {
      const next = document.indexOf("<", at);
      if (next < 0) fail(`<${name}> is not closed`);
      const raw = document.slice(at, next);
      if (raw.includes("]]>")) fail(`"]]>" in the text of <${name}>`);
      text += decode(raw, `<${name}>`);
      at = next;
      if (document.startsWith("</", at)) break;
      if (comment()) continue;
      if (document.startsWith("<!", at) || document.startsWith("<?", at)) {
        fail("CDATA, a DTD or a processing instruction (outside the subset)");
      }
      children.push(element());
    }
    expect(`</${name}`);
    match(SPACE);
    expect(">");
    return { name, attributes, children, text: children.length > 0 && text.trim() === "" ? "" : text };
  };

  match(/<\?xml[ \t\r\n]+version=(["'])1\.0\1(?:[ \t\r\n]+encoding=(["'])UTF-8\2)?[ \t\r\n]*\?>/iy);
  misc();
  const root = element();
  misc();
  if (at !== document.length) fail("content after the root element");
  return root;
};

type Check = (value: string) => boolean;
const INT = /^[+-]?[0-9]+$/;
const isInt: Check = (value) => INT.test(value) && Math.abs(Number(value)) <= 2 ** 31;
const isBoolean: Check = (value) => ["true", "false", "1", "0"].includes(value);
const oneOf =
  (pattern: string): Check =>
  (value) =>
    new RegExp(`^(?:${pattern})$`).test(value);

interface Attribute {
  readonly required?: boolean;
  readonly check?: Check;
}
/** An element's content: a sequence of [child, min, max] (order matters), or text; with its attributes. */
interface ElementType {
  readonly sequence?: readonly (readonly [string, number, number])[];
  readonly text?: Check;
  readonly attributes?: Readonly<Record<string, Attribute>>;
}

const STRING: ElementType = { text: () => true };
const X733 =
  "CommunicationsAlarm|ProcessingErrorAlarm|EnvironmentalAlarm|QualityOfServiceAlarm|EquipmentAlarm|IntegrityViolation|SecurityViolation|TimeDomainViolation|OperationalViolation|PhysicalViolation";
const ALARM_DATA: ElementType = {
  sequence: [
    ["update-field", 0, Infinity],
    ["managed-object", 0, 1],
  ],
  attributes: {
    "reduction-key": { required: true },
    "alarm-type": { required: true, check: (value) => isInt(value) && Number(value) >= 1 },
    "clear-key": {},
    "auto-clean": { check: isBoolean },
    "x733-alarm-type": { check: oneOf(X733) },
    "x733-probable-cause": { check: isInt },
  },
};
const LOGMSG = (dests: string): ElementType => ({
  text: () => true,
  attributes: { notify: { check: isBoolean }, dest: { check: oneOf(dests) } },
});

// event.xsd (namespace http://xmlns.opennms.org/xsd/event): <event>'s sequence in full; the elements our events
// never hold (mask, snmp, correlation, actions, tickets, forwards, scripts) are refused rather than checked.
const EVENT_TYPES: Readonly<Record<string, ElementType>> = {
  event: {
    sequence: [
      ["dbid", 0, 1],
      ["dist-poller", 0, 1],
      ["creation-time", 0, 1],
      ["master-station", 0, 1],
      ["mask", 0, 1],
      ["uei", 0, 1],
      ["source", 1, 1],
      ["nodeid", 0, 1],
      ["time", 1, 1],
      ["host", 0, 1],
      ["interface", 0, 1],
      ["snmphost", 0, 1],
      ["service", 0, 1],
      ["snmp", 0, 1],
      ["parms", 0, 1],
      ["descr", 0, 1],
      ["logmsg", 0, 1],
      ["severity", 0, 1],
      ["pathoutage", 0, 1],
      ["correlation", 0, 1],
      ["operinstruct", 0, 1],
      ["autoaction", 0, Infinity],
      ["operaction", 0, Infinity],
      ["autoacknowledge", 0, 1],
      ["loggroup", 0, Infinity],
      ["tticket", 0, 1],
      ["forward", 0, Infinity],
      ["script", 0, Infinity],
      ["ifIndex", 0, 1],
      ["ifAlias", 0, 1],
      ["mouseovertext", 0, 1],
      ["alarm-data", 0, 1],
    ],
    attributes: { uuid: {} },
  },
  dbid: { text: (value) => isInt(value) && Number(value) >= 1 },
  nodeid: { text: (value) => INT.test(value) },
  ifIndex: { text: isInt },
  parms: { sequence: [["parm", 1, Infinity]] },
  parm: {
    sequence: [
      ["parmName", 1, 1],
      ["value", 1, 1],
    ],
  },
  value: {
    text: () => true,
    attributes: {
      type: {
        check: oneOf(
          "int|string|Int32|OctetString|Null|ObjectIdentifier|Sequence|IpAddress|Counter32|Gauge32|TimeTicks|Opaque|Counter64",
        ),
      },
      encoding: { check: oneOf("text|base64") },
    },
  },
  logmsg: LOGMSG("logndisplay|displayonly|logonly|suppress|donotpersist"),
  "alarm-data": ALARM_DATA,
  "update-field": {
    attributes: { "field-name": { required: true }, "update-on-reduction": { check: isBoolean } },
  },
  "managed-object": { attributes: { type: { required: true } } },
  ...Object.fromEntries(
    [
      "dist-poller",
      "creation-time",
      "master-station",
      "uei",
      "source",
      "time",
      "host",
      "interface",
      "snmphost",
      "service",
      "parmName",
      "descr",
      "severity",
      "pathoutage",
      "operinstruct",
      "loggroup",
      "ifAlias",
      "mouseovertext",
    ].map((name) => [name, STRING]),
  ),
};

/** Where an element breaks its type: unknown attributes, bad values, children out of order or count, stray text. */
const elementErrors = (types: Readonly<Record<string, ElementType>>, element: XmlElement, path: string): string[] => {
  const type = types[element.name];
  if (type === undefined) return [`${path}: <${element.name}> is outside the subset this check knows`];
  const errors: string[] = [];
  for (const [name, value] of Object.entries(element.attributes)) {
    const attribute = type.attributes?.[name];
    if (attribute === undefined) errors.push(`${path}: attribute ${name} is not in the schema`);
    else if (attribute.check !== undefined && !attribute.check(value)) errors.push(`${path}: ${name}="${value}"`);
  }
  for (const [name, attribute] of Object.entries(type.attributes ?? {})) {
    if (attribute.required === true && !(name in element.attributes)) errors.push(`${path}: ${name} is missing`);
  }
  if (type.sequence === undefined) {
    if (element.children.length > 0) errors.push(`${path}: holds elements, the schema gives it none`);
    if (type.text === undefined && element.text.trim() !== "") errors.push(`${path}: holds text`);
    else if (type.text !== undefined && !type.text(element.text)) errors.push(`${path}: "${element.text}"`);
    return errors;
  }
  if (element.text.trim() !== "") errors.push(`${path}: holds text between its elements`);
  let particle = 0;
  let count = 0;
  element.children.forEach((child, index) => {
    while (particle < type.sequence!.length && type.sequence![particle]![0] !== child.name) {
      if (count < type.sequence![particle]![1]) errors.push(`${path}: <${type.sequence![particle]![0]}> is missing`);
      particle += 1;
      count = 0;
    }
    const childPath = `${path}/${child.name}[${index + 1}]`;
    if (particle === type.sequence!.length) {
      errors.push(`${childPath}: not allowed here (the schema's order, or not a child of <${element.name}>)`);
      return;
    }
    count += 1;
    if (count > type.sequence![particle]![2]) errors.push(`${childPath}: more than ${type.sequence![particle]![2]}`);
    errors.push(...elementErrors(types, child, childPath));
  });
  for (; particle < type.sequence.length; particle += 1, count = 0) {
    if (count < type.sequence[particle]![1]) errors.push(`${path}: <${type.sequence[particle]![0]}> is missing`);
  }
  return errors;
};

const parsed = (document: string): XmlElement | string => {
  try {
    return parseXml(document);
  } catch (error) {
    return `not well-formed XML: ${(error as Error).message}`;
  }
};

const rootErrors = (root: XmlElement, name: string, namespace: string): string[] => [
  ...(root.name === name ? [] : [`the root is <${root.name}>, not <${name}>`]),
  ...(root.attributes["xmlns"] === namespace ? [] : [`<${name}> is not in ${namespace}`]),
];
const withoutNamespace = (root: XmlElement): XmlElement => {
  const { xmlns: _namespace, ...attributes } = root.attributes;
  return { ...root, attributes };
};

/** The namespaces of OpenNMS's two schemas. */
export const OPENNMS_NAMESPACES = {
  event: "http://xmlns.opennms.org/xsd/event",
  eventconf: "http://xmlns.opennms.org/xsd/eventconf",
} as const;

/** OpenNMS's severity names (`OnmsSeverity`): anything else becomes Indeterminate. */
export const OPENNMS_SEVERITIES = ["Indeterminate", "Cleared", "Normal", "Warning", "Minor", "Major", "Critical"];

// What OpenNMS's default event time formatter parses (java.time's ZonedDateTime.parse: ISO 8601 with an offset).
const ISO_ZONED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Why `document` is not an OpenNMS event (`event.xsd`'s `<event>`, in its namespace) OpenNMS would take in: empty
 * when it is one. Beyond the schema's strings, `time` must be ISO 8601 with an offset and `severity` a severity name,
 * as OpenNMS reads them.
 */
export const opennmsEventErrors = (document: string): string[] => {
  const root = parsed(document);
  if (typeof root === "string") return [root];
  const errors = [
    ...rootErrors(root, "event", OPENNMS_NAMESPACES.event),
    ...elementErrors(EVENT_TYPES, withoutNamespace(root), "event"),
  ];
  const time = root.children.find((child) => child.name === "time")?.text;
  if (time !== undefined && !ISO_ZONED_TIME.test(time))
    errors.push(`event/time: "${time}" is not ISO 8601 with an offset`);
  const severity = root.children.find((child) => child.name === "severity")?.text;
  if (severity !== undefined && !OPENNMS_SEVERITIES.includes(severity)) errors.push(`event/severity: "${severity}"`);
  return errors;
};

/** An OpenNMS event's fields the `opennms` kind sets, read from its XML once it passes `opennmsEventErrors`. */
export interface OpennmsEventRead {
  readonly uuid: string | undefined;
  readonly uei: string | undefined;
  readonly source: string | undefined;
  readonly time: string | undefined;
  readonly severity: string | undefined;
  readonly parms: Readonly<Record<string, string>>;
  readonly alarmData: Readonly<Record<string, string>> | undefined;
}

/** Reads an OpenNMS event; throws with every schema error when it is not one. */
export const readOpennmsEvent = (document: string): OpennmsEventRead => {
  const errors = opennmsEventErrors(document);
  if (errors.length > 0) throw new Error(`not an OpenNMS event:\n${errors.join("\n")}`);
  const root = parseXml(document);
  const text = (name: string) => root.children.find((child) => child.name === name)?.text;
  const parms = root.children.find((child) => child.name === "parms")?.children ?? [];
  return {
    uuid: root.attributes["uuid"],
    uei: text("uei"),
    source: text("source"),
    time: text("time"),
    severity: text("severity"),
    parms: Object.fromEntries(parms.map((parm) => [parm.children[0]!.text, parm.children[1]!.text])),
    alarmData: root.children.find((child) => child.name === "alarm-data")?.attributes,
  };
};

/** A reduction or clear key as OpenNMS expands it for `event`: `%uei%` and `%parm[name]%` (empty when absent). */
export const expandOpennmsKey = (key: string, event: OpennmsEventRead): string =>
  key.replace(/%uei%|%parm\[([^\]]+)\]%/g, (_token, parm: string | undefined) =>
    parm === undefined ? (event.uei ?? "") : (event.parms[parm] ?? ""),
  );

// eventconf.xsd (namespace http://xmlns.opennms.org/xsd/eventconf): <events> and <event> are choices (any order);
// the counts below are its minOccurs/maxOccurs, for the elements an eventconf file of ours holds.
const EVENTCONF_EVENT: Readonly<Record<string, readonly [number, number]>> = {
  uei: [1, 1],
  priority: [0, 1],
  "event-label": [1, 1],
  descr: [1, 1],
  logmsg: [1, 1],
  severity: [1, 1],
  operinstruct: [0, 1],
  mouseovertext: [0, 1],
  "alarm-data": [0, 1],
};
const EVENTCONF_TYPES: Readonly<Record<string, ElementType>> = {
  ...Object.fromEntries(
    ["uei", "event-label", "descr", "severity", "operinstruct", "mouseovertext"].map((name) => [name, STRING]),
  ),
  priority: { text: (value) => /^[0-9]+$/.test(value) },
  logmsg: LOGMSG("logndisplay|displayonly|logonly|suppress|donotpersist|discardtraps"),
  "alarm-data": ALARM_DATA,
  "update-field": {
    attributes: {
      "field-name": { required: true },
      "update-on-reduction": { check: isBoolean },
      "value-expression": {},
    },
  },
  "managed-object": { attributes: { type: { required: true } } },
};

/** Why `document` is not an eventconf file (`eventconf.xsd`'s `<events>` of `<event>`s) OpenNMS would load: empty when it is one. */
export const eventconfErrors = (document: string): string[] => {
  const root = parsed(document);
  if (typeof root === "string") return [root];
  const errors = rootErrors(root, "events", OPENNMS_NAMESPACES.eventconf);
  if (Object.keys(withoutNamespace(root).attributes).length > 0) errors.push("<events> has attributes");
  root.children.forEach((event, index) => {
    const path = `events/event[${index + 1}]`;
    if (event.name !== "event") return errors.push(`${path}: <${event.name}> is outside the subset this check knows`);
    if (Object.keys(event.attributes).length > 0) errors.push(`${path}: has attributes`);
    for (const [name, [min, max]] of Object.entries(EVENTCONF_EVENT)) {
      const count = event.children.filter((child) => child.name === name).length;
      if (count < min || count > max) errors.push(`${path}: ${count} <${name}>, the schema wants ${min} to ${max}`);
    }
    event.children.forEach((child) => {
      const childPath = `${path}/${child.name}`;
      if (!(child.name in EVENTCONF_EVENT)) errors.push(`${childPath}: outside the subset this check knows`);
      else errors.push(...elementErrors(EVENTCONF_TYPES, child, childPath));
    });
    return undefined;
  });
  return errors;
};
