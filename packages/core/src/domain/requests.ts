import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { AliasCodec, ApiKeyCodec, OrchestratorUrlCodec, Rfc3339TimeCodec } from "./codecs.js";
import { KEY_RENEWAL_MODES, REFERENCE_NOT_RENEWED } from "./connection.js";
import type { ChangeableField, Connection } from "./connection.js";
import { checked, oneOf, strictObject } from "./decode.js";
import { ApiKeyRefCodec } from "./key-reference.js";

// Each field of a connection and its codec: the request bodies, the audited fields and the configuration's steps
// derive from this one table, and a new field of `Connection` does not compile until it is here.
type FieldCodecs = { readonly [K in keyof Connection]-?: t.Type<Exclude<Connection[K], undefined>, string> };
export const CONNECTION_FIELDS = {
  alias: AliasCodec,
  orchestratorUrl: OrchestratorUrlCodec,
  apiKey: ApiKeyCodec,
  apiKeyExpiresAt: Rfc3339TimeCodec,
  keyRenewal: oneOf(KEY_RENEWAL_MODES),
  apiKeyRef: ApiKeyRefCodec,
} satisfies FieldCodecs;
export const CHANGEABLE_FIELDS = Object.keys(CONNECTION_FIELDS).filter(
  (field): field is ChangeableField => field !== "alias",
);

const { alias, orchestratorUrl, ...optionalFields } = CONNECTION_FIELDS;

/**
 * `apiKey` and `apiKeyRef` exclude each other (SPEC §12): both given is refused naming both, neither (on add) naming
 * `apiKey`, the field the original interface's clients know; a reference is never renewed (`REFERENCE_NOT_RENEWED`).
 */
const oneKey = <C extends t.Mixed>(codec: C, required: boolean) =>
  checked(codec.name, codec, (input, context) => {
    const record = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
    const at = (key: string) => [...context, { key, type: codec, actual: input }];
    const both = "apiKey and apiKeyRef exclude each other: give the key, or where it is kept, not both";
    const keyErrors: t.Errors = [
      ...(record["apiKey"] !== undefined && record["apiKeyRef"] !== undefined
        ? [
            { value: record["apiKey"], context: at("apiKey"), message: both },
            { value: record["apiKeyRef"], context: at("apiKeyRef"), message: both },
          ]
        : required && record["apiKey"] === undefined && record["apiKeyRef"] === undefined
          ? [{ value: undefined, context: at("apiKey"), message: "is required" }]
          : []),
      ...(record["keyRenewal"] === "auto" && record["apiKeyRef"] !== undefined
        ? [{ value: record["keyRenewal"], context: at("keyRenewal"), message: REFERENCE_NOT_RENEWED }]
        : []),
    ];
    const decoded = codec.validate(input, context);
    if (keyErrors.length === 0) return decoded;
    return t.failures([...(E.isLeft(decoded) ? decoded.left : []), ...keyErrors]);
  });

/**
 * Body of "add a connection": alias, URL and key (or where it is kept), the key's declared expiry if the client knows
 * it, and whether the service renews the key (`keyRenewal`, SPEC §12); nothing else.
 */
export const AddConnectionRequest = strictObject(
  "AddConnection",
  CONNECTION_FIELDS,
  oneKey(t.intersection([t.type({ alias, orchestratorUrl }), t.partial(optionalFields)]), true),
);
export type AddConnectionRequest = t.TypeOf<typeof AddConnectionRequest>;

const keyCheckProps = { apiKey: ApiKeyCodec };

/** Body of "check a connection's key": the apiKey to compare, nothing else. */
export const KeyCheckRequest = strictObject("KeyCheckRequest", keyCheckProps, t.type(keyCheckProps));

const updateFields = t.partial(CONNECTION_FIELDS);

const atLeastOneChange = checked("UpdateConnectionFields", updateFields, (input, context) =>
  CHANGEABLE_FIELDS.every((field) => (input as Record<string, unknown>)[field] === undefined)
    ? t.failure(input, context, `must contain at least one of ${CHANGEABLE_FIELDS.join(", ")}`)
    : updateFields.validate(input, context),
);

/**
 * Body of "update a connection": the changeable fields, at least one. An `alias` is
 * tolerated here; the use case checks it names the connection being updated.
 */
export const UpdateConnectionRequest = strictObject(
  "UpdateConnection",
  CONNECTION_FIELDS,
  oneKey(atLeastOneChange, false),
);
export type UpdateConnectionRequest = t.TypeOf<typeof UpdateConnectionRequest>;
