import * as t from "io-ts";
import { AliasCodec, ApiKeyCodec, OrchestratorUrlCodec } from "./codecs.js";
import { strictObject } from "./decode.js";

const connectionProps = { alias: AliasCodec, orchestratorUrl: OrchestratorUrlCodec, apiKey: ApiKeyCodec };

/** Body of "add a connection": all three fields, nothing else. */
export const AddConnectionRequest = strictObject("AddConnectionRequest", connectionProps, t.type(connectionProps));
export type AddConnectionRequest = t.TypeOf<typeof AddConnectionRequest>;

const keyCheckProps = { apiKey: ApiKeyCodec };

/** Body of "check a connection's key": the apiKey to compare, nothing else. */
export const KeyCheckRequest = strictObject("KeyCheckRequest", keyCheckProps, t.type(keyCheckProps));

const updateFields = t.partial(connectionProps);
type UpdateFields = t.TypeOf<typeof updateFields>;

const atLeastOneChange = new t.Type<UpdateFields, t.OutputOf<typeof updateFields>, unknown>(
  "UpdateConnectionFields",
  updateFields.is,
  (input, context) => {
    const record = input as Record<string, unknown>;
    if (record["orchestratorUrl"] === undefined && record["apiKey"] === undefined) {
      return t.failure(input, context, "must contain orchestratorUrl, apiKey or both");
    }
    return updateFields.validate(input, context);
  },
  updateFields.encode,
);

/**
 * Body of "update a connection": orchestratorUrl and/or apiKey. An `alias` is
 * tolerated here; the use case checks it names the connection being updated.
 */
export const UpdateConnectionRequest = strictObject("UpdateConnectionRequest", connectionProps, atLeastOneChange);
export type UpdateConnectionRequest = t.TypeOf<typeof UpdateConnectionRequest>;
