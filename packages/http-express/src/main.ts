/**
 * The REST service's process: the configuration from the environment, the
 * service, and a clean stop on SIGTERM/SIGINT (drain, close the store, exit 0).
 */
import { loadConfig } from "@sdwan-connections/composition";
import * as E from "fp-ts/lib/Either.js";
import { startService } from "./service.js";

const fail = (line: string): never => {
  process.stderr.write(`sdwan-connections: ${line}\n`);
  process.exit(2);
};

const config = loadConfig();
if (E.isLeft(config)) fail(config.left);
else {
  // The generated admin's password is printed last, after the listening line: nothing scrolls it away.
  let adminAnnouncement = "";
  const service = await startService(config.right, { announce: (text) => (adminAnnouncement = text) })();
  if (E.isLeft(service)) {
    process.stdout.write(adminAnnouncement);
    fail(service.left);
  } else {
    const { url, close } = service.right;
    const consoleUrl = config.right.console ? `, console: ${url}/console/` : "";
    process.stdout.write(
      `sdwan-connections listening on ${url}/rest/plugin/sdwan (OpenAPI: ${url}/rest/plugin/sdwan/openapi.json${consoleUrl})\n${adminAnnouncement}`,
    );
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    // Listening for as long as the process lives (not `once`): proper-lockfile's signal-exit re-raises a signal
    // when it is the last listener, which would kill the drain; a repeated signal is ignored while draining.
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  }
}
