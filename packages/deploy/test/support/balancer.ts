import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A Service's endpoints, played on 127.0.0.1: a round-robin HTTP proxy that
 * sends each request, on a new connection (as kube-proxy balances
 * connections), to an instance whose readiness path answered 200 at its last
 * poll and that is not terminating. As with Endpoints, a termination shows at
 * the next poll, not at once: the manifest's preStop pause must cover that lag.
 * It never retries, so every failure of an instance reaches the client.
 */
export interface Balancer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  add(name: string, origin: string): void;
  /** The instance is being deleted: no new requests once the next poll has run. */
  terminate(name: string): void;
  /** Requests proxied to each instance so far. */
  served(): Readonly<Record<string, number>>;
  close(): Promise<void>;
}

interface Endpoint {
  readonly origin: string;
  ready: boolean;
  terminating: boolean;
  served: number;
}

export const startBalancer = async ({
  readinessPath,
  pollMs,
}: {
  readonly readinessPath: string;
  readonly pollMs: number;
}): Promise<Balancer> => {
  const endpoints = new Map<string, Endpoint>();
  let next = 0;
  const poll = async (): Promise<void> => {
    await Promise.all(
      [...endpoints.values()].map(async (endpoint) => {
        const status = endpoint.terminating
          ? 0
          : await fetch(`${endpoint.origin}${readinessPath}`, { signal: AbortSignal.timeout(pollMs) }).then(
              (response) => response.status,
              () => 0,
            );
        endpoint.ready = status === 200;
      }),
    );
  };
  let polling = true;
  const loop = (async () => {
    while (polling) {
      await Promise.all([poll(), new Promise((done) => setTimeout(done, pollMs))]);
    }
  })();

  const server: Server = createServer((incoming, outgoing) => {
    const ready = [...endpoints.values()].filter((endpoint) => endpoint.ready);
    const endpoint = ready[next++ % Math.max(ready.length, 1)];
    if (endpoint === undefined) {
      outgoing.writeHead(503).end("no ready endpoint");
      return;
    }
    endpoint.served += 1;
    const target = new URL(incoming.url ?? "/", endpoint.origin);
    const proxied = request(target, { method: incoming.method, headers: incoming.headers, agent: false }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    proxied.once("error", (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end(`proxy: ${error.message}`);
      else outgoing.destroy(error);
    });
    incoming.pipe(proxied);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    add: (name, origin) => {
      endpoints.set(name, { origin, ready: false, terminating: false, served: 0 });
    },
    terminate: (name) => {
      const endpoint = endpoints.get(name);
      if (endpoint !== undefined) endpoint.terminating = true;
    },
    served: () => Object.fromEntries([...endpoints].map(([name, endpoint]) => [name, endpoint.served])),
    close: async () => {
      polling = false;
      await loop;
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
};
