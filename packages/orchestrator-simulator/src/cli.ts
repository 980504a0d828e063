import * as E from "fp-ts/lib/Either.js";

/** What `pnpm simulator` / `node dist/src/main.js` accept, from flags first, then environment. */
export interface CliOptions {
  readonly host: string;
  readonly port: number;
  readonly prefix: string;
  readonly dataFile?: string;
  readonly generate?: {
    readonly partners: number;
    readonly enterprisesPerPartner: number;
    readonly nullShare?: number;
  };
  /** PEM files: with both, the simulator serves HTTPS. */
  readonly tls?: { readonly keyFile: string; readonly certFile: string };
  /** Whether a refreshed token's predecessor is revoked (by default it works on until its own expiry). */
  readonly refreshRevokesPredecessor?: boolean;
}

export const USAGE = `Usage: sdwan-orchestrator-simulator [--host 127.0.0.1] [--port 8981] [--prefix /vco] [--data file.json] [--generate PARTNERS:ENTERPRISES [--null-share 0.25]] [--tls-key key.pem --tls-cert cert.pem] [--refresh-revokes-predecessor false]
Environment: SIMULATOR_HOST, SIMULATOR_PORT, SIMULATOR_PREFIX, SIMULATOR_DATA, SIMULATOR_GENERATE, SIMULATOR_NULL_SHARE, SIMULATOR_TLS_KEY, SIMULATOR_TLS_CERT, SIMULATOR_REFRESH_REVOKES_PREDECESSOR (same meanings).`;

const positiveInt = (name: string, value: string, min: number): number => {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > 65535 * 1000)
    throw new Error(`${name}: expected an integer >= ${min}, got '${value}'`);
  return Number(value);
};

/** Parses argv (without node and script) and env; one clear line on a bad value. */
export const parseCliOptions = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): E.Either<string, CliOptions> =>
  // The checks below throw their line; this is where it is caught.
  E.tryCatch(
    () => readOptions(argv, env),
    (error) => (error as Error).message,
  );

const readOptions = (argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliOptions => {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === "--") continue; // what `pnpm start -- --port 1` passes through
    const match =
      /^--(host|port|prefix|data|generate|null-share|tls-key|tls-cert|refresh-revokes-predecessor)(?:=(.*))?$/.exec(
        arg,
      );
    if (match === null) throw new Error(`unknown argument '${arg}'\n${USAGE}`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${match[1]} needs a value`);
    flags.set(match[1] as string, value);
  }
  const get = (flag: string, variable: string): string | undefined => flags.get(flag) ?? env[variable];
  const port = positiveInt("--port / SIMULATOR_PORT", get("port", "SIMULATOR_PORT") ?? "8981", 0);
  if (port > 65535) throw new Error(`--port / SIMULATOR_PORT: expected 0-65535, got ${port}`);
  const generate = get("generate", "SIMULATOR_GENERATE");
  const nullShare = get("null-share", "SIMULATOR_NULL_SHARE");
  if (nullShare !== undefined && (generate === undefined || !/^(0(\.\d+)?|1(\.0+)?)$/.test(nullShare)))
    throw new Error(
      `--null-share / SIMULATOR_NULL_SHARE: expected a share from 0 to 1 with --generate, got '${nullShare}'`,
    );
  const dataFile = get("data", "SIMULATOR_DATA");
  const keyFile = get("tls-key", "SIMULATOR_TLS_KEY");
  const certFile = get("tls-cert", "SIMULATOR_TLS_CERT");
  if ((keyFile === undefined) !== (certFile === undefined))
    throw new Error("--tls-key and --tls-cert (SIMULATOR_TLS_KEY, SIMULATOR_TLS_CERT) go together");
  const revokes = get("refresh-revokes-predecessor", "SIMULATOR_REFRESH_REVOKES_PREDECESSOR");
  if (revokes !== undefined && revokes !== "true" && revokes !== "false")
    throw new Error(
      `--refresh-revokes-predecessor / SIMULATOR_REFRESH_REVOKES_PREDECESSOR: expected true or false, got '${revokes}'`,
    );
  let generated: CliOptions["generate"];
  if (generate !== undefined) {
    const [partners = "", enterprises = ""] = generate.split(":");
    generated = {
      partners: positiveInt("--generate / SIMULATOR_GENERATE partners", partners, 1),
      enterprisesPerPartner: positiveInt("--generate / SIMULATOR_GENERATE enterprises", enterprises, 0),
      ...(nullShare === undefined ? {} : { nullShare: Number(nullShare) }),
    };
  }
  return {
    host: get("host", "SIMULATOR_HOST") ?? "127.0.0.1",
    port,
    prefix: get("prefix", "SIMULATOR_PREFIX") ?? "",
    ...(dataFile === undefined ? {} : { dataFile }),
    ...(generated === undefined ? {} : { generate: generated }),
    ...(keyFile === undefined || certFile === undefined ? {} : { tls: { keyFile, certFile } }),
    ...(revokes === undefined ? {} : { refreshRevokesPredecessor: revokes === "true" }),
  };
};
