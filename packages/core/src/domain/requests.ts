import * as t from "io-ts";
import { AliasCodec, ApiKeyCodec, KeyRenewalCodec, OrchestratorUrlCodec, Rfc3339TimeCodec } from "./codecs.js";
import type { ChangeableField, Connection } from "./connection.js";
import { strictObject } from "./decode.js";

// Each field of a connection and its codec: the request bodies, the audited fields and the configuration's steps
// derive from this one table, and a new field of `Connection` does not compile until it is here.
type FieldCodecs = { readonly [K in keyof Connection]-?: t.Type<Exclude<Connection[K], undefined>, string> };
export const CONNECTION_FIELDS = {
  alias: AliasCodec,
  orchestratorUrl: OrchestratorUrlCodec,
  apiKey: ApiKeyCodec,
  apiKeyExpiresAt: Rfc3339TimeCodec,
  keyRenewal: KeyRenewalCodec,
} satisfies FieldCodecs;
export const CHANGEABLE_FIELDS = Object.keys(CONNECTION_FIELDS).filter(
  (field): field is ChangeableField => field !== "alias",
);

const { apiKeyExpiresAt, keyRenewal, ...requiredFields } = CONNECTION_FIELDS;

/** Body of "add a connection": alias, URL and key, and the key's declared expiry and renewal if the client says; nothing else. */
export const AddConnectionRequest = strictObject(
  "AddConnectionRequest",
  CONNECTION_FIELDS,
  t.intersection([t.type(requiredFields), t.partial({ apiKeyExpiresAt, keyRenewal })]),
);
export type AddConnectionRequest = t.TypeOf<typeof AddConnectionRequest>;

const keyCheckProps = { apiKey: ApiKeyCodec };

/** Body of "check a connection's key": the apiKey to compare, nothing else. */
export const KeyCheckRequest = strictObject("KeyCheckRequest", keyCheckProps, t.type(keyCheckProps));

const updateFields = t.partial(CONNECTION_FIELDS);
type UpdateFields = t.TypeOf<typeof updateFields>;

const atLeastOneChange = new t.Type<UpdateFields, t.OutputOf<typeof updateFields>, unknown>(
  "UpdateConnectionFields",
  updateFields.is,
  (input, context) => {
    const record = input as Record<string, unknown>;
    if (CHANGEABLE_FIELDS.every((field) => record[field] === undefined)) {
      return t.failure(input, context, "must contain orchestratorUrl, apiKey or both");
    }
    return updateFields.validate(input, context);
  },
  updateFields.encode,
);

/**
 * Body of "update a connection": orchestratorUrl, apiKey, apiKeyExpiresAt and keyRenewal, at least one. An `alias` is
 * tolerated here; the use case checks it names the connection being updated.
 */
export const UpdateConnectionRequest = strictObject("UpdateConnectionRequest", CONNECTION_FIELDS, atLeastOneChange);
export type UpdateConnectionRequest = t.TypeOf<typeof UpdateConnectionRequest>;
