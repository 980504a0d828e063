import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { freePort } from "@sdwan-connections/e2e/support/containers";
import type { ContainerRun } from "./pod.js";

const run = promisify(execFile);
const docker = async (...args: string[]): Promise<string> =>
  (await run("docker", args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();

/**
 * One pod of a manifest, played by `docker run` on the host network: the
 * manifest's environment (its own port through SDWAN_PORT), user, read-only
 * root filesystem, capabilities and memory limit; each writable volume a tmpfs
 * whose root is group-writable as a volume under `fsGroup` is; the image's own
 * `/data`, which Kubernetes does not mount, read-only as in the pod.
 */
export interface PodContainer {
  readonly name: string;
  readonly origin: string;
  /** What the kubelet does to a deleted pod: the preStop pause, SIGTERM, and SIGKILL after the grace period. Resolves to the exit code. */
  terminate(): Promise<number>;
  logs(): Promise<string>;
  /** `kubectl exec -i`: runs `command` in the container with `input` on its standard input; resolves to its standard output. */
  exec(command: readonly string[], input?: Buffer): Promise<Buffer>;
  /** The container's peak memory use so far, in bytes, as its cgroup (v2 or v1) counts it against the limit. */
  memoryPeak(): Promise<number>;
  remove(): Promise<void>;
}

const execIn = (name: string, command: readonly string[], input?: Buffer): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const child = spawn("docker", ["exec", "--interactive", name, ...command], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0
        ? resolve(Buffer.concat(out))
        : reject(new Error(`${command.join(" ")} exited ${code}: ${err.trim()}`)),
    );
    child.stdin.end(input);
  });

const FS_GROUP_VOLUME = "mode=2775,uid=0,gid=";

export const startPodContainer = async (image: string, pod: ContainerRun, label: string): Promise<PodContainer> => {
  const port = await freePort();
  const name = `${label}-${randomBytes(4).toString("hex")}`;
  const gid = pod.user.split(":")[1] ?? "";
  const environment = { ...pod.environment, SDWAN_PORT: String(port) };
  const args = [
    "run",
    "--detach",
    "--name",
    name,
    "--label",
    "sdwan.test=deploy",
    "--network",
    "host",
    "--user",
    pod.user,
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--memory",
    String(pod.memoryLimitBytes),
    "--memory-swap",
    String(pod.memoryLimitBytes),
    ...(pod.readOnlyRootFilesystem
      ? ["--read-only", "--tmpfs", `/data:ro,mode=0700,uid=${pod.user.replace(":", ",gid=")}`]
      : []),
    ...pod.writablePaths.flatMap((path) => ["--tmpfs", `${path}:rw,${FS_GROUP_VOLUME}${gid}`]),
    ...Object.entries(environment).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
    image,
  ];
  await docker(...args);
  return {
    name,
    origin: `http://127.0.0.1:${port}`,
    terminate: async () => {
      await new Promise((done) => setTimeout(done, pod.preStopSeconds * 1000));
      await docker("kill", "--signal", "SIGTERM", name);
      const grace = setTimeout(
        () => void docker("kill", name).catch(() => undefined),
        (pod.terminationGracePeriodSeconds - pod.preStopSeconds) * 1000,
      );
      try {
        return Number(await docker("wait", name));
      } finally {
        clearTimeout(grace);
      }
    },
    logs: async () => {
      const { stdout, stderr } = await run("docker", ["logs", name], { maxBuffer: 64 * 1024 * 1024 });
      return stdout + stderr;
    },
    exec: (command, input) => execIn(name, command, input),
    memoryPeak: async () =>
      Number(
        await execIn(name, [
          "sh",
          "-c",
          "cat /sys/fs/cgroup/memory.peak 2>/dev/null || cat /sys/fs/cgroup/memory/memory.max_usage_in_bytes",
        ]),
      ),
    remove: async () => {
      await docker("rm", "--force", name).catch(() => undefined);
    },
  };
};

/** Resolves once `GET <origin><path>` answers 200; fails with the container's last log lines if it does not within `timeoutMs`. */
export const waitUntilAnswers = async (pod: PodContainer, path: string, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`${pod.origin}${path}`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) {
      const logs = await pod.logs().catch(() => "(no logs)");
      throw new Error(
        `${pod.name}: ${path} answered ${status || "nothing"} after ${timeoutMs} ms\n${logs.trimEnd().split("\n").slice(-20).join("\n")}`,
      );
    }
    await new Promise((done) => setTimeout(done, 200));
  }
};
