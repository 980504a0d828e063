import { createServer as createHttpsServer } from "node:https";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestCertificates } from "@sdwan-connections/orchestrator-simulator";
import { Webhook } from "standardwebhooks";

/** What a receiver got: the verified event's id (webhook-id), its body, and when. */
export interface Received {
  readonly id: string;
  readonly body: { readonly id: string; readonly type: string; readonly subject: string };
  readonly headers: IncomingMessage["headers"];
}

/** Picks the status of a verified request, at once or after a while (a receiver that takes time to answer). */
export type Answer = (request: Received) => number | Promise<number>;

/**
 * A loopback webhook receiver (HTTPS with a test CA, or plain HTTP) that verifies every request as a Standard
 * Webhooks receiver does, with the `standardwebhooks` package; `answer` picks each status (200 by default).
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
        const body = new Webhook(secret).verify(payload, req.headers as Record<string, string>) as Received["body"];
        received = { id: req.headers["webhook-id"] as string, body, headers: req.headers };
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
