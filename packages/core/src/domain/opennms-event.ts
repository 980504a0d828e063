import type { CloudEvent } from "./events.js";

// PLACEHOLDER until the opennms track's file of the same name lands (it replaces this one whole): the webhooks'
// `opennms` kind calls this signature. It names the event only; UEIs, parms and reduction keys are that track's.
/** The OpenNMS event (XML) for `event`; null when OpenNMS has none for its type. */
export const opennmsEventXml = (event: CloudEvent, _context: { orchestratorUrl: string | null }): string | null =>
  `<event xmlns="http://xmlns.opennms.org/xsd/event"><uei>uei.opennms.org/sdwan/${event.type}</uei><source>sdwan-connections</source><time>${event.time}</time></event>`;
