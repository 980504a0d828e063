import { connect, createServer, type Socket } from "node:net";

export interface OutageProxy {
  /** `databaseUrl` with its port replaced by the proxy's: whoever connects through it can be cut off. */
  readonly connectionString: string;
  /** Every connection through the proxy is closed (both ends, so PostgreSQL ends those backends) and new ones are closed at once. */
  cut(): void;
  /** Connections pass again. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of a database: one instance of the
 * service connects through it, so the test can take the database away from
 * that instance alone (its pool and its LISTEN connection) while another
 * instance keeps writing, then give it back.
 */
export const startOutageProxy = async (databaseUrl: string): Promise<OutageProxy> => {
  const target = new URL(databaseUrl);
  const open = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.pipe(to);
      from.on("error", () => to.destroy());
      from.on("close", () => {
        open.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the outage proxy has no port");
  const proxied = new URL(databaseUrl);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(address.port);
  const cutAll = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    connectionString: proxied.toString(),
    cut: () => {
      down = true;
      cutAll();
    },
    restore: () => {
      down = false;
    },
    close: async () => {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
