import { createServer as createHttpsServer } from "node:https";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readOpennmsEvent } from "@sdwan-connections/core/testing";
import { createTestCertificates } from "@sdwan-connections/orchestrator-simulator";
import { Webhook } from "standardwebhooks";

/**
 * What a receiver got: the verified event's id (webhook-id), its body, and when. An OpenNMS event's body is read as
 * its `uuid`, `uei` and `alias` parm, with the rest of it in `opennms`.
 */
export interface Received {
  readonly id: string;
  readonly body: { readonly id: string; readonly type: string; readonly subject: string };
  readonly opennms?: ReturnType<typeof readOpennmsEvent>;
  readonly headers: IncomingMessage["headers"];
}

/** Picks the status of a verified request, at once or after a while (a receiver that takes time to answer). */
export type Answer = (request: Received) => number | Promise<number>;

/**
 * The body of a request signed with `secret`, as a Standard Webhooks receiver checks it. standardwebhooks' `verify`
 * parses the body as JSON, so an XML body (an OpenNMS event, which must also pass OpenNMS's event.xsd) is checked
 * by signing it again with the same library.
 */
const verified = (secret: string, payload: string, headers: Record<string, string>): Omit<Received, "headers"> => {
  const webhook = new Webhook(secret);
  const id = headers["webhook-id"] ?? "";
  if (headers["content-type"] !== "application/xml")
    return { id, body: webhook.verify(payload, headers) as Received["body"] };
  const signedAt = new Date(Number(headers["webhook-timestamp"]) * 1000);
  if (webhook.sign(id, signedAt, payload) !== headers["webhook-signature"]) throw new Error("no matching signature");
  const opennms = readOpennmsEvent(payload);
  return {
    id,
    body: { id: opennms.uuid ?? "", type: opennms.uei ?? "", subject: opennms.parms["alias"] ?? "" },
    opennms,
  };
};

/**
 * A loopback webhook receiver (HTTPS with a test CA, or plain HTTP) that verifies every request as a Standard
 * Webhooks receiver does, with the `standardwebhooks` package, and an OpenNMS event against OpenNMS's event.xsd;
 * `answer` picks each status (200 by default).
 * Requests that fail verification are counted, never accepted.
 */
export const startWebhookReceiver = async (options: { readonly tls?: boolean; readonly answer?: Answer } = {}) => {
  const certificates = createTestCertificates();
  const accepted: Received[] = [];
  const refused: string[] = [];
  let secret: string | undefined;
  let answer = options.answer ?? (() => 200);
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const payload = Buffer.concat(chunks).toString("utf8");
      let received: Received;
      try {
        if (secret === undefined) throw new Error("no secret yet");
        received = { ...verified(secret, payload, req.headers as Record<string, string>), headers: req.headers };
      } catch (error) {
        refused.push(String(error));
        res.writeHead(400).end();
        return;
      }
      void Promise.resolve(answer(received)).then((status) => {
        if (status >= 200 && status < 300) accepted.push(received);
        res.writeHead(status).end();
      });
    });
  };
  const tls = options.tls ?? true;
  const server = tls
    ? createHttpsServer({ key: certificates.key, cert: certificates.cert }, handle)
    : createHttpServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}/hook`,
    caCert: certificates.caCert,
    accepted,
    refused,
    useSecret: (value: string) => (secret = value),
    answerWith: (next: Answer) => (answer = next),
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
