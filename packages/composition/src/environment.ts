import { readFileSync } from "node:fs";

/** Past this many bytes of environment, a copy through process.env takes seconds (about 1.5 s for 10,000 variables). */
const LARGE_ENVIRONMENT_BYTES = 256 * 1024;

/** The environment the process was started with, as the system shows it (Linux), else undefined. */
const startEnvironmentText = (): string | undefined => {
  try {
    return readFileSync("/proc/self/environ", "utf8");
  } catch {
    return undefined;
  }
};

/**
 * A copy of the process's environment, for what else names a variable in it (the CLI's `env:NAME` key
 * references): read once. Every read of process.env, a spread of it included, scans the whole C environment, so
 * a copy through it is quadratic: 10,000 variables took 1.5 s, 100,000 minutes (issue 40: 409 s for a
 * 100,000-entry `apply` as a process, the spread its profile's top frame). A large environment is therefore read
 * in one pass as the process was started with it: it then misses what the process itself set since, which
 * nothing does before reading it. A small one is copied as it is now.
 */
export const processEnvironment = (): Readonly<Record<string, string | undefined>> => {
  const text = startEnvironmentText();
  if (text === undefined || text.length <= LARGE_ENVIRONMENT_BYTES) return { ...process.env };
  const env: Record<string, string> = {};
  for (const pair of text.split("\0")) {
    const equals = pair.indexOf("=");
    if (equals > 0) env[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return env;
};
