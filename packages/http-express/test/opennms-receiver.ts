import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  expandOpennmsKey,
  opennmsEventErrors,
  readOpennmsEvent,
  type OpennmsEventRead,
} from "@sdwan-connections/core/testing";

/** An alarm as OpenNMS's alarm list shows it: one per reduction key, its count, and whether a resolution cleared it. */
export interface OpennmsAlarm {
  readonly reductionKey: string;
  readonly uei: string;
  readonly severity: string;
  readonly count: number;
  readonly cleared: boolean;
}

/**
 * A stock OpenNMS's `POST /opennms/rest/events` on loopback, as its REST API answers it
 * (`org.opennms.netmgt.events.rest.internal.EventRestServiceImpl#publishEvent`, github.com/OpenNMS/opennms): plain
 * `http:`, Basic authentication with the default `admin`/`admin` (401 otherwise, with OpenNMS's realm), `application/
 * xml` only (415 otherwise), a body that must be an event as OpenNMS's `event.xsd` defines it (core/testing's
 * transcribed schema check; 400 otherwise, as OpenNMS answers what it cannot unmarshal), then 202 Accepted.
 * It keeps the events it took and an alarm list reduced as Alarmd's default `AlarmPersisterImpl` does: a problem
 * (alarm type 1 or 3) raises or reduces into the alarm of its reduction key; a resolution (type 2) clears the alarm
 * whose reduction key is its clear key, or is an alarm of its own when there is none (docs/opennms.md).
 */
export const startOpennms = async (credentials = { username: "admin", password: "admin" }) => {
  const events: OpennmsEventRead[] = [];
  const refused: { readonly status: number; readonly why: string }[] = [];
  const alarms = new Map<string, OpennmsAlarm>();
  const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")}`;

  const take = (event: OpennmsEventRead) => {
    events.push(event);
    const data = event.alarmData;
    if (data === undefined || data["reduction-key"] === undefined) return;
    const reductionKey = expandOpennmsKey(data["reduction-key"], event);
    const clearKey = data["clear-key"] === undefined ? undefined : expandOpennmsKey(data["clear-key"], event);
    const cleared = clearKey === undefined ? undefined : alarms.get(clearKey);
    if (data["alarm-type"] === "2" && cleared !== undefined) {
      alarms.set(clearKey!, { ...cleared, severity: "Cleared", cleared: true, count: cleared.count + 1 });
      return;
    }
    const earlier = alarms.get(reductionKey);
    alarms.set(reductionKey, {
      reductionKey,
      uei: event.uei ?? "",
      severity: event.severity ?? "Indeterminate",
      count: (earlier?.count ?? 0) + 1,
      cleared: false,
    });
  };

  const answer = (res: ServerResponse, status: number, why?: string, headers: Record<string, string> = {}) => {
    if (why !== undefined) refused.push({ status, why });
    res.writeHead(status, headers).end();
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.url !== "/opennms/rest/events") return answer(res, 404, `no such path ${req.url ?? ""}`);
      if (req.method !== "POST") return answer(res, 405, `method ${req.method ?? ""}`);
      if (req.headers.authorization !== expected)
        return answer(res, 401, "credentials", { "www-authenticate": 'Basic realm="OpenNMS Realm"' });
      if (req.headers["content-type"] !== "application/xml")
        return answer(res, 415, `content type ${req.headers["content-type"] ?? "none"}`);
      const body = Buffer.concat(chunks).toString("utf8");
      const errors = opennmsEventErrors(body);
      if (errors.length > 0) return answer(res, 400, errors.join("; "));
      take(readOpennmsEvent(body));
      return answer(res, 202);
    });
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The REST events URL, as docs/opennms.md writes it for an OpenNMS on this host. */
    url: `http://127.0.0.1:${port}/opennms/rest/events`,
    port,
    events,
    refused,
    /** The alarm list, in the order the alarms were raised. */
    alarms: (): OpennmsAlarm[] => [...alarms.values()],
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
