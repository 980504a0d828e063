import { AliasCodec } from "@sdwan-connections/core";
import { Problem } from "@sdwan-connections/core/wire";

/** The building blocks every resource's description shares: answers, headers, parameters. */

/** The largest request body accepted (413 above it): part of the interface, so defined with its document. */
export const BODY_LIMIT_BYTES = 64 * 1024;

export const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: Problem } },
});
/** A JSON answer: `schema` is a wire codec (or a schema). */
export const json = <S>(description: string, schema: S) => ({
  description,
  content: { "application/json": { schema } },
});
/** A 201's JSON answer, with the `Location` of what it created (`respond.ts`'s `sendCreated`). */
export const created = <S>(description: string, schema: S) => ({
  ...json(description, schema),
  headers: {
    Location: { schema: { type: "string" }, description: "The path of the new resource: the request's, then its id." },
  },
});
/** A text/plain answer that is one of `values`. */
export const text = (description: string, values: readonly string[]) => ({
  description,
  content: { "text/plain": { schema: { type: "string", enum: values } } },
});

/** Lists are answered once per change: an ETag to revalidate with, and br or gzip when asked for (above 1 KiB). */
export const conditional = {
  parameters: [
    {
      name: "If-None-Match",
      in: "header",
      required: false,
      description: "An ETag of an earlier answer: 304 while the list is unchanged.",
      schema: { type: "string" },
    },
  ],
  headers: {
    ETag: { schema: { type: "string" }, description: "A weak entity tag of this list; the same for every encoding." },
    Vary: { schema: { type: "string", const: "Accept-Encoding" } },
    "Content-Encoding": {
      schema: { type: "string", enum: ["br", "gzip"] },
      description: "Negotiated from Accept-Encoding (q=0 honoured); absent for identity.",
    },
  },
  notModified: { description: "Not modified: the client's copy (If-None-Match) is current. No body." },
} as const;

export const commonErrors = {
  "400": problem("Invalid input: malformed JSON, a missing, invalid or unknown field or query option, or a bad alias."),
  "401": {
    ...problem(
      "No or wrong HTTP Basic credentials, or a bearer token refused (the detail says why: expired, audience, issuer, signature, algorithm; a service token unknown, revoked or expired; never the token).",
    ),
    headers: {
      "WWW-Authenticate": {
        schema: { type: "string" },
        description:
          'Basic realm="sdwan"; left out when the request carries X-Requested-With (a script such as the console asks, so the browser opens no dialog). With an OpenID provider configured also Bearer realm="sdwan", with error="invalid_token" when a token was refused; a refused service token always gets that Bearer challenge.',
      },
    },
  },
  "429": {
    ...problem("Too many failed logins from this client."),
    headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds until the client may try again." } },
  },
  "503": {
    ...problem(
      "The connection store cannot be used right now; or (identity-provider-unavailable) a bearer token cannot be checked: the OpenID provider's keys cannot be read (Basic credentials still work).",
    ),
    headers: {
      "Retry-After": {
        schema: { type: "integer" },
        description: "With identity-provider-unavailable: seconds before the provider is asked again.",
      },
    },
  },
};
/** A connection the principal reads without the verb asked (SPEC §11). */
export const verbMissing = problem(
  "The principal may read this connection but not do this (the detail names the verb).",
);
/** A path alias that names no connection. */
export const noSuchConnection = problem("No connection with this alias.");
export const writeErrors = {
  "403": problem(
    "The user's role (viewer) may only read and no grant lets it do this (the detail names the verb); an add: no manage grant covers the alias.",
  ),
  "413": problem(`The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB.`),
  "415": problem("The request body is not JSON."),
  "422": problem(
    "Validation failed: the orchestrator refused the key, failed, did not answer in time or could not be reached; the detail says which (use force=true to save anyway).",
  ),
};
export const aliasParameter = {
  name: "alias",
  in: "path",
  required: true,
  description: "The connection's alias, matched ignoring case.",
  schema: AliasCodec,
};
export const flag = (name: string, description: string) => ({
  name,
  in: "query",
  required: false,
  description: `${description} \`true\` or \`false\` (any case); any other value or an unknown option is 400.`,
  schema: { type: "string", enum: ["true", "false"], default: "false" },
});
/** A JSON request body: `schema` is the core codec that decodes it. */
export const jsonBody = <S>(schema: S, required = true) => ({ required, content: { "application/json": { schema } } });
