import { loadConfig } from "@sdwan-connections/composition";
import * as E from "fp-ts/lib/Either.js";
import { startService } from "@sdwan-connections/http-express";

/** Starts the REST service from an environment; answers its URL and how to stop it, or the one-line reason it cannot start. */
export const serve = async (env: Readonly<Record<string, string | undefined>>) => {
  const config = loadConfig(env); // by default the process's environment
  if (E.isLeft(config)) return config;
  return startService(config.right)(); // Right: { url, composition, close() }; close() drains, then unbinds everything
};
