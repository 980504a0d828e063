import { describeError, storageFailure, type DomainError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type * as t from "io-ts";
import { Problem, problemSlugOf, type ProblemSlug } from "@sdwan-connections/core/wire";
import type { Answer } from "./rest-codecs.js";

/** Why an admin request (tokens, grants, webhooks) failed: the exit code and one line, never a secret. */
export interface RestFailure {
  readonly exit: "usage" | "notFound" | "conflict" | "storage";
  readonly message: string;
  /** The request's fields the service refused: the command says them in its own words (its options, its arguments). */
  readonly errors?: readonly { readonly field: string; readonly message: string }[];
  /** The context's credentials or rights were refused: no option of the command's help would change that. */
  readonly blamesContext?: boolean;
}

/** The service's admin API as the CLI's tokens, grants and webhooks commands call it: each answer decoded. */
export interface RestApi {
  request<A>(
    method: string,
    path: string,
    codec: t.Decoder<unknown, A>,
    options?: { readonly body?: unknown; readonly ok?: number },
  ): TE.TaskEither<RestFailure, A>;
}

// What each problem of the admin endpoints means to a script: its exit code (the rest are the service's failures).
export const REST_EXITS: Readonly<Partial<Record<ProblemSlug, RestFailure["exit"]>>> = {
  "invalid-input": "usage",
  unauthorized: "usage",
  forbidden: "usage",
  "no-such-endpoint": "usage",
  "method-not-allowed": "usage",
  "token-not-found": "notFound",
  "grant-not-found": "notFound",
  "webhook-not-found": "notFound",
  "delivery-not-found": "notFound",
  "delivery-event-expired": "notFound",
  "token-already-exists": "conflict",
  "grant-already-exists": "conflict",
  "delivery-pending": "conflict",
};

/** What the admin API shares with the service's other requests: one request sent, an answer decoded. */
export interface AdminTransport {
  readonly origin: string;
  /** The context's name, in the lines that blame it. */
  readonly context: string;
  readonly send: (
    method: string,
    path: string,
    options: { readonly body?: unknown },
  ) => TE.TaskEither<DomainError, Answer>;
  readonly json: <A>(codec: t.Decoder<unknown, A>, answer: Answer) => E.Either<DomainError, A>;
}

/** The admin API over the service's transport: a problem's type gives the exit code, its detail the line. */
export const restApi = ({ origin, context, send, json }: AdminTransport): RestApi => ({
  request: <A>(
    method: string,
    path: string,
    codec: t.Decoder<unknown, A>,
    options: { readonly body?: unknown; readonly ok?: number } = {},
  ): TE.TaskEither<RestFailure, A> =>
    pipe(
      send(method, path, options.body === undefined ? {} : { body: options.body }),
      TE.mapLeft((error): RestFailure => ({ exit: "storage", message: describeError(error) })),
      TE.flatMap((answer) => {
        if (answer.status === (options.ok ?? 200)) {
          const decoded: E.Either<DomainError, A> =
            answer.status === 204
              ? E.mapLeft(() => storageFailure(`The service at ${origin} answered 204 to a read.`))(
                  codec.decode(undefined),
                )
              : json(codec, answer);
          return TE.fromEither(
            E.mapLeft((error: DomainError): RestFailure => ({ exit: "storage", message: describeError(error) }))(
              decoded,
            ),
          );
        }
        const problem = json(Problem, answer);
        if (E.isLeft(problem))
          return TE.left<RestFailure>({
            exit: answer.status === 401 ? "usage" : "storage",
            message: `context '${context}': the service answered HTTP ${answer.status}`,
            ...(answer.status === 401 ? { blamesContext: true } : {}),
          });
        const { type, detail, errors } = problem.right;
        const slug = problemSlugOf(type);
        const blamesContext = slug === "unauthorized" || slug === "forbidden";
        return TE.left<RestFailure>({
          exit: (slug === undefined ? undefined : REST_EXITS[slug]) ?? "storage",
          message: blamesContext ? `context '${context}': ${detail}` : detail,
          ...(errors === undefined ? {} : { errors }),
          ...(blamesContext ? { blamesContext } : {}),
        });
      }),
    ),
});
