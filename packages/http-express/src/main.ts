/**
 * The only composition root: reads the environment, starts the service,
 * and stops it cleanly on SIGTERM/SIGINT (drain, close the store, exit 0).
 */
import { loadConfig } from "./config.js";
import { StartupError } from "./di/modules/startup-error.js";
import { startService } from "./service.js";

const fail = (line: string): never => {
  process.stderr.write(`sdwan-connections: ${line}\n`);
  process.exit(2);
};

const config = loadConfig(process.env);
if (config._tag === "Left") fail(config.left);
else {
  try {
    const service = await startService(config.right);
    process.stdout.write(`sdwan-connections listening on ${service.url}/rest/plugin/sdwan (OpenAPI: ${service.url}/rest/plugin/sdwan/openapi.json)\n`);
    const stop = (): void => {
      void service.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  } catch (error) {
    fail(error instanceof StartupError ? error.message : `could not start: ${(error as Error).message}`);
  }
}
