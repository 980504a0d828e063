import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** `src/main.ts` in a child process, exactly as `pnpm start` runs it (sources through tsx instead of dist). */
export const runMain = (env: Record<string, string>, entry = "src/main.ts") => {
  const child = spawn(process.execPath, ["--conditions=sdwan-source", "--import", "tsx", entry], {
    cwd: PACKAGE_DIR,
    env: {
      PATH: process.env["PATH"] ?? "",
      SDWAN_PORT: "0",
      SDWAN_LOG_LEVEL: "warn",
      SDWAN_HEALTH_INTERVAL_S: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  // Up to 60 s: tsx compiles the sources at every start, slow on a loaded machine.
  const listening = async (): Promise<string> => {
    for (let i = 0; i < 1200 && !/listening on (http:\/\/\S+?)\/rest/.test(stdout); i += 1) {
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /listening on (http:\/\/\S+?)\/rest/.exec(stdout)?.[1];
    if (url === undefined) throw new Error(`did not start:\n${stdout}\n${stderr}`);
    return url;
  };
  return { child, exited, listening, out: () => stdout, err: () => stderr };
};
