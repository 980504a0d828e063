import type { ConnectionService } from "@sdwan-connections/core";
import type { Request, Response } from "express";
import { actorOf } from "./request-context.js";

// The connection a path names, as given (core records it only when it is a valid alias).
const aliasInPath = (path: string): string | undefined => {
  const raw = /^\/connections\/([^/]+)/.exec(path)?.[1];
  try {
    return raw === undefined ? undefined : decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

/** A viewer's refused write, audited as a refused attempt: who, the request id, its method and the connection its path names. */
export const auditForbidden =
  (service: ConnectionService) =>
  (req: Request, res: Response): Promise<void> => {
    const alias = aliasInPath(req.path);
    return service.recordForbiddenWrite(actorOf(res.locals), {
      method: req.method,
      ...(alias === undefined ? {} : { alias }),
    });
  };
