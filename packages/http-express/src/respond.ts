import type { DomainError } from "@sdwan-connections/core";
import type { IncomingMessage } from "node:http";
import type { Response } from "express";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type * as t from "io-ts";
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

/** `V` with each field the wire's `W` lacks, at any depth, made `never`: so a value with one is refused. */
type Exactly<W, V> = W extends unknown
  ? V extends Date
    ? V
    : V extends readonly (infer I)[]
      ? NonNullable<W> extends readonly (infer J)[]
        ? readonly Exactly<J, I>[]
        : never
      : V extends object
        ? { [K in keyof V]: K extends keyof NonNullable<W> ? Exactly<NonNullable<W>[K], V[K]> : never }
        : V
  : never;

/**
 * JSON straight onto the socket: express's `res.json` adds content negotiation and freshness checks these small,
 * dynamic answers do not need. `answer`, the wire's codec of this answer, types `body` (a field it lacks, or one
 * missing, does not compile); it is not run: JSON writes a Date as the codec encodes it.
 */
export const sendJson = <C extends t.Any, V extends t.TypeOf<C>>(
  res: Response,
  status: number,
  _answer: C,
  body: V & Exactly<t.TypeOf<C>, V>,
): void => {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.end(JSON.stringify(body));
};

/**
 * 201 Created with a `Location` naming the new resource (RFC 9110 §15.3.2: without one, a client would take the
 * collection the request was posted to for it): the request's path, then the new resource's id.
 */
export const sendCreated = <C extends t.Any, V extends t.TypeOf<C> & { readonly id: string }>(
  res: Response,
  answer: C,
  body: V & Exactly<t.TypeOf<C>, V>,
): void => {
  const collection = (res.req.originalUrl.split("?")[0] ?? "").replace(/\/+$/, "");
  res.setHeader("Location", `${collection}/${encodeURIComponent(body.id)}`);
  sendJson(res, 201, answer, body);
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
