import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { rootCertificates } from "node:tls";
import { fileURLToPath } from "node:url";

/** The repository root: the service image's build context. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** The tag the suite builds and runs. */
export const SERVICE_IMAGE = process.env["SDWAN_TEST_SERVICE_IMAGE"] ?? "sdwan-connections:e2e";

/** The Dockerfile's base image: the local one the CI prepares, else the official Node.js 22 image. */
export const BASE_IMAGE = process.env["SDWAN_TEST_NODE_IMAGE"] ?? "node:22-bookworm-slim";

const LOG_DIR = resolve(REPO_ROOT, "packages/e2e/.test-results");
export const BUILD_LOG = join(LOG_DIR, "image-build.log");

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const normalize = (pem: string): string => pem.replace(/\s+/g, "");

/**
 * CA certificates the build stage must trust to reach the npm registry: those
 * of SDWAN_TEST_BUILD_CA_FILE, else of NODE_EXTRA_CA_CERTS, that Node.js does
 * not already trust (a TLS-intercepting proxy's CA; nothing on a plain laptop).
 */
export const extraCaCertificates = (): string => {
  const file = process.env["SDWAN_TEST_BUILD_CA_FILE"] ?? process.env["NODE_EXTRA_CA_CERTS"];
  if (file === undefined || file === "" || !existsSync(file)) return "";
  const known = new Set(rootCertificates.map(normalize));
  return (readFileSync(file, "utf8").match(PEM) ?? []).filter((pem) => !known.has(normalize(pem))).join("\n");
};

const tail = (text: string, lines: number): string => text.trimEnd().split("\n").slice(-lines).join("\n");

/**
 * `docker build` of packages/http-express/Dockerfile with the classic builder
 * and host networking (the CI daemon has neither BuildKit nor a bridge). Output
 * goes to BUILD_LOG; a failure throws with the log's last lines.
 */
export const buildServiceImage = async (): Promise<{ readonly seconds: number }> => {
  mkdirSync(LOG_DIR, { recursive: true });
  const args = [
    "build",
    "--force-rm",
    "--network",
    "host",
    "-f",
    "packages/http-express/Dockerfile",
    "--build-arg",
    `BASE_IMAGE=${BASE_IMAGE}`,
    "-t",
    SERVICE_IMAGE,
    ".",
  ];
  const ca = extraCaCertificates();
  if (ca !== "") args.splice(1, 0, "--build-arg", `EXTRA_CA_CERTS=${ca}`);
  const started = Date.now();
  const log = createWriteStream(BUILD_LOG);
  let output = "";
  const code = await new Promise<number | string>((done) => {
    const child = spawn("docker", args, {
      cwd: REPO_ROOT,
      env: { ...process.env, DOCKER_BUILDKIT: process.env["DOCKER_BUILDKIT"] ?? "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const collect = (chunk: Buffer): void => {
      log.write(chunk);
      output = (output + chunk.toString("utf8")).slice(-20_000);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("error", (error) => done(error.message));
    child.once("close", (status) => done(status ?? -1));
  });
  await new Promise((done) => log.end(done));
  if (code !== 0) {
    throw new Error(
      `docker build of ${SERVICE_IMAGE} failed (${typeof code === "number" ? `exit ${code}` : code}); log: ${BUILD_LOG}\n${tail(output, 25)}`,
    );
  }
  return { seconds: Math.round((Date.now() - started) / 100) / 10 };
};
