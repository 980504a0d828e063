import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { ApiKey } from "../domain/api-key.js";
import { invalidInput, type DomainError } from "../domain/errors.js";
import type { ApiKeyRef } from "../domain/key-reference.js";
import type { KeyReader } from "../ports/key-files.js";

/** The key a request's `apiKeyRef` names, read now (SPEC §12), or InvalidInput naming `apiKeyRef` and why (never the key). */
export const readReferencedKey = (keys: KeyReader, reference: ApiKeyRef): TE.TaskEither<DomainError, ApiKey> =>
  pipe(
    keys.read(reference),
    TE.mapLeft((problem) => invalidInput([{ field: "apiKeyRef", message: problem }])),
  );
