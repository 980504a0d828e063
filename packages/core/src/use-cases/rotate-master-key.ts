import * as TE from "fp-ts/lib/TaskEither.js";
import { pipe } from "fp-ts/lib/function.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionRepository, KeyRotationReport } from "../ports/connection-repository.js";
import type { WebhookStore } from "../ports/webhook-store.js";

/**
 * After the operator sets a new master key (and lists the old one as
 * previous), re-seals every stored apiKey with it, then every webhook's
 * secrets, so the old key can be retired. Changes no connection's alias, URL
 * or key. The report counts both.
 */
export const rotateMasterKey =
  (deps: {
    readonly repository: ConnectionRepository;
    readonly webhooks: WebhookStore;
  }): (() => TE.TaskEither<DomainError, KeyRotationReport>) =>
  () =>
    pipe(
      deps.repository.resealKeys(),
      TE.flatMap((keys) =>
        pipe(
          deps.webhooks.resealSecrets(),
          TE.map((secrets) => ({ rotated: keys.rotated + secrets.rotated, total: keys.total + secrets.total })),
        ),
      ),
    );
