import type { CloudEvent } from "./events.js";
import type { HealthState } from "./health.js";

/** The namespace of OpenNMS's `event.xsd` (`elementFormDefault="qualified"`): every element of an event is in it. */
export const OPENNMS_EVENT_NAMESPACE = "http://xmlns.opennms.org/xsd/event";

/** What OpenNMS shows as the event's `source`. */
export const OPENNMS_EVENT_SOURCE = "sdwan-connections";

const UEI_PREFIX = "uei.opennms.org/sdwan/";

/** What `POST /webhooks/{id}/ping` sends an `opennms` webhook: an event that raises no alarm. */
const PING = "ping";

/** Every UEI the `opennms` webhook kind sends (SPEC §9), the ping's too; the shipped eventconf file defines each. */
export const OPENNMS_UEIS = [
  PING,
  "connectionInvalid",
  "connectionUnreachable",
  "connectionValid",
  "connectionProblemChanged",
  "keyExpiring",
  "keyExpired",
  "keyRenewalFailed",
  "connectionDeleted",
].map((name) => `${UEI_PREFIX}${name}`);

/** One alarm per connection and UEI (SPEC §9): OpenNMS expands the tokens when it takes the event in. */
const REDUCTION_KEY = "%uei%:%parm[alias]%";
/**
 * What a resolution clears: the alarm named by the `problemUei` parm. One resolution UEI ends any of several alarms
 * (`connectionValid` either problem, `connectionDeleted` each of a connection's alarms), so the alarm it ends
 * travels as a parm, not in the key.
 */
const CLEAR_KEY = "%parm[problemUei]%:%parm[alias]%";

/** OpenNMS alarm types: 1 a problem, 2 its resolution, 3 a problem nothing resolves. */
type AlarmType = 1 | 2 | 3;

interface OpennmsEvent {
  readonly name: string;
  readonly severity: "Normal" | "Warning" | "Minor" | "Major";
  readonly alarmType: AlarmType;
  readonly parms: Readonly<Record<string, string | null>>;
}

const PROBLEMS: Partial<Record<HealthState, { readonly name: string; readonly severity: OpennmsEvent["severity"] }>> = {
  invalid: { name: "connectionInvalid", severity: "Major" },
  unreachable: { name: "connectionUnreachable", severity: "Minor" },
};

/** Every alarm a connection can have: what its deletion clears (SPEC §9: `connectionDeleted` "clears the problems"). */
const CONNECTION_ALARMS = [
  "connectionInvalid",
  "connectionUnreachable",
  "keyExpiring",
  "keyExpired",
  "keyRenewalFailed",
] as const;

/** A resolution (`name`) of the connection's `problem` alarm. */
const resolution = (name: string, problem: string, reason: string | null): OpennmsEvent => ({
  name,
  severity: "Normal",
  alarmType: 2,
  parms: { reason, problemUei: `${UEI_PREFIX}${problem}` },
});

/**
 * The OpenNMS events a CloudEvent becomes, in the order they are sent (clears before raises), as OpenNMS's severity
 * and alarm fields see them; none when it means nothing to an alarm list:
 * - a health change to `invalid` or `unreachable` raises that problem; from the other problem, it first clears the
 *   earlier one with `connectionProblemChanged` (not `connectionValid`: the connection is not valid, and an
 *   operator's event list should not say so); back to `valid` from a problem, `connectionValid` clears it; any other
 *   change (`unknown` → `valid`, to `unknown`) neither raises nor clears anything;
 * - key expiry warnings are problems nothing resolves (a new key simply stops the warnings), reduced to one
 *   alarm per connection whose count tells the thresholds passed;
 * - a renewal that failed (SPEC §12) is a problem nothing resolves, as the warnings are; a renewal is not sent (the
 *   warnings simply stop);
 * - a deletion clears every alarm the connection can have, one `connectionDeleted` per alarm (one OpenNMS event
 *   carries one clear key);
 * - adds and updates are not sent: they raise and clear nothing, and a health change follows any that matters.
 */
const opennmsEventsOf = (event: CloudEvent): readonly OpennmsEvent[] => {
  switch (event.type) {
    case "org.sdwan-connections.connection.health.changed": {
      const { from, to, reason } = event.data;
      const raised = PROBLEMS[to];
      const earlier = from === to ? undefined : PROBLEMS[from];
      if (raised !== undefined) {
        const raise: OpennmsEvent = { ...raised, alarmType: 1, parms: { reason } };
        return earlier === undefined
          ? [raise]
          : [resolution("connectionProblemChanged", earlier.name, `now ${to}`), raise];
      }
      return to === "valid" && earlier !== undefined ? [resolution("connectionValid", earlier.name, null)] : [];
    }
    case "org.sdwan-connections.connection.key.expiring":
    case "org.sdwan-connections.connection.key.expired": {
      const { expiresAt, daysLeft, source } = event.data;
      const expired = event.type === "org.sdwan-connections.connection.key.expired";
      return [
        {
          name: expired ? "keyExpired" : "keyExpiring",
          severity: expired ? "Major" : "Warning",
          alarmType: 3,
          parms: { reason: `the key expires at ${expiresAt} (${source})`, daysLeft: String(daysLeft) },
        },
      ];
    }
    case "org.sdwan-connections.connection.key.renewalFailed":
      return [{ name: "keyRenewalFailed", severity: "Warning", alarmType: 3, parms: { reason: event.data.reason } }];
    case "org.sdwan-connections.connection.key.renewed":
      return [];
    case "org.sdwan-connections.connection.deleted":
      return CONNECTION_ALARMS.map((alarm) => resolution("connectionDeleted", alarm, `deleted by ${event.data.actor}`));
    case "org.sdwan-connections.connection.added":
    case "org.sdwan-connections.connection.updated":
      return [];
  }
};

// What XML 1.0 cannot carry, even escaped (anything outside its `Char` production: most control characters, lone
// surrogates, U+FFFE, U+FFFF): such characters become U+FFFD.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** `text` safe as element content or a quoted attribute value. */
const xml = (text: string): string => text.replace(NOT_XML, "\uFFFD").replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

const parmXml = ([name, value]: readonly [string, string]) =>
  `    <parm><parmName>${xml(name)}</parmName><value type="string" encoding="text">${xml(value)}</value></parm>`;

/** One OpenNMS event as it is posted: its `uuid` and its XML. */
export interface OpennmsEventDocument {
  readonly uuid: string;
  readonly xml: string;
}

const document = (uuid: string, name: string, time: string, parms: readonly string[], tail: readonly string[]) =>
  [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<event xmlns="${OPENNMS_EVENT_NAMESPACE}" uuid="${xml(uuid)}">`,
    `  <uei>${UEI_PREFIX}${name}</uei>`,
    `  <source>${OPENNMS_EVENT_SOURCE}</source>`,
    `  <time>${xml(time)}</time>`,
    ...(parms.length === 0 ? [] : [`  <parms>`, ...parms, `  </parms>`]),
    ...tail,
    `</event>`,
    ``,
  ].join("\n");

/**
 * The event `POST /webhooks/{id}/ping` posts to an `opennms` webhook (`uuid` its `webhook-id`): `…/ping`, Normal,
 * no alarm data, so it shows in OpenNMS's event list (the "check that it works" of docs/opennms.md) and raises no
 * alarm; its `webhookId` parm names the webhook pinged.
 */
export const opennmsPing = (uuid: string, at: Date, webhookId: string): OpennmsEventDocument => ({
  uuid,
  xml: document(uuid, PING, at.toISOString(), [parmXml(["webhookId", webhookId])], [`  <severity>Normal</severity>`]),
});

/**
 * The OpenNMS events (XML, OpenNMS's `event.xsd`) the `opennms` webhook kind posts to `…/opennms/rest/events` for
 * `event`, in order, one POST each; **none when the event is not sent** to OpenNMS (adds, updates, and health
 * changes that neither raise nor clear a problem). Each has its own `uuid`: the event's id, then `<id>-2`, `<id>-3`…
 * Parms: `alias`, `orchestratorUrl` (when the event tells it: never read from the store at delivery), `reason` and `daysLeft` (when they apply), `problemUei` (on
 * resolutions: the alarm they clear). Only those fields are read from `event`, every value is escaped, and nothing
 * else (never a key) is written.
 */
export const opennmsEvents = (event: CloudEvent): readonly OpennmsEventDocument[] =>
  opennmsEventsOf(event).map((sent, index) => {
    const uuid = index === 0 ? event.id : `${event.id}-${index + 1}`;
    const parms = Object.entries({
      alias: event.subject,
      orchestratorUrl: event.data.orchestratorUrl ?? null,
      ...sent.parms,
    }).filter((parm): parm is [string, string] => parm[1] !== null);
    const clearKey = sent.alarmType === 2 ? ` clear-key="${xml(CLEAR_KEY)}"` : "";
    return {
      uuid,
      xml: document(uuid, sent.name, event.time, parms.map(parmXml), [
        `  <severity>${sent.severity}</severity>`,
        `  <alarm-data reduction-key="${xml(REDUCTION_KEY)}" alarm-type="${sent.alarmType}"${clearKey} auto-clean="false"/>`,
      ]),
    };
  });
