import type { DomainError } from "@sdwan-connections/core";
import type { Response } from "express";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { domainErrorToProblem, type Problem } from "./errors.js";

export const sendProblem = (res: Response, { status, body, headers }: Problem): void => {
  if (headers !== undefined) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
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
export const respond = async <A>(res: Response, task: TaskEither<DomainError, A>, onSuccess: (value: A) => void): Promise<void> => {
  const result = await task();
  if (result._tag === "Left") sendProblem(res, domainErrorToProblem(result.left));
  else onSuccess(result.right);
};
