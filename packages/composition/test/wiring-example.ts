import { compose, loadConfig } from "@sdwan-connections/composition";
import * as E from "fp-ts/lib/Either.js";

/**
 * What every driver does: the configuration from the environment (here a
 * record; by default the process's own), the container composed and
 * activated, one use case, then everything closed by unbinding.
 */
export const listConnections = async (env: Readonly<Record<string, string | undefined>>) => {
  const config = loadConfig(env);
  if (E.isLeft(config)) throw new Error(config.left); // one line naming the bad variable
  const composed = await compose(config.right)();
  if (E.isLeft(composed)) throw new Error(composed.left); // e.g. a wrong master key, an unreadable CA file
  const { service, close } = composed.right;
  try {
    return await service.connections.list()();
  } finally {
    await close(); // the store flushed and its lock released, sockets freed, logs flushed
  }
};
