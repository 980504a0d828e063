import type { DomainError } from "@sdwan-connections/core";
import type { IncomingMessage } from "node:http";
import type { Response } from "express";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { domainErrorToProblem, type Problem } from "./errors.js";

/** Whether the request carries a body nobody has read: its answer came before (credentials, media type, size). */
const bodyUnread = (req: IncomingMessage): boolean => {
  const length = req.headers["content-length"];
  const declared = req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
  return declared && !req.readableEnded;
};

export const sendProblem = (res: Response, { status, body, headers }: Problem): void => {
  if (headers !== undefined) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  // A refusal before the body was read closes the connection: otherwise the client could keep the socket
  // (and node's wait for the rest of its body) as long as it likes, a thousand of them at once.
  if (bodyUnread(res.req)) res.setHeader("Connection", "close");
  res.status(status).setHeader("Content-Type", "application/problem+json; charset=utf-8");
  res.end(JSON.stringify(body));
};

/**
 * JSON straight onto the socket: express's `res.json` adds content
 * negotiation and freshness checks these small, dynamic answers do not need.
 */
export const sendJson = (res: Response, status: number, body: unknown): void => {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.end(JSON.stringify(body));
};

export const sendText = (res: Response, text: string): void => {
  res.status(200).setHeader("Content-Type", "text/plain; charset=utf-8");
  res.end(text);
};

/** Runs a use case and answers with `onSuccess`, or with the problem its domain error maps to. */
export const respond = async <A>(
  res: Response,
  task: TaskEither<DomainError, A>,
  onSuccess: (value: A) => void,
): Promise<void> => {
  const result = await task();
  if (result._tag === "Left") sendProblem(res, domainErrorToProblem(result.left));
  else onSuccess(result.right);
};
