import * as t from "io-ts";
import { AuditEntryProps } from "../domain/audit.js";
import { IsoTimeCodec } from "../domain/codecs.js";
import { CloudEventCodec } from "../domain/events.js";

/**
 * One audited operation (`GET /audit`), whether it succeeded or not: never a key's value, only the names of the
 * fields given. `version` and `orchestratorUrl`: the connection's as the change left it, when the store kept them.
 */
export const AuditEntry = t.intersection(
  [
    t.type({ at: IsoTimeCodec, ...AuditEntryProps, requestId: t.union([t.string, t.null]) }),
    t.partial({ version: t.number, orchestratorUrl: t.string }),
  ],
  "AuditEntry",
);
export type AuditEntry = t.TypeOf<typeof AuditEntry>;

/** A page of the trail, newest first, and the cursor of the next one (`?before=`; null: no older entry). */
export const AuditPage = t.type(
  { entries: t.readonlyArray(AuditEntry), next: t.union([t.string, t.null]) },
  "AuditPage",
);
export type AuditPage = t.TypeOf<typeof AuditPage>;

/** An event of `GET /events` (and of a webhook of kind cloudevents): CloudEvents 1.0 JSON, its data by type. */
export const CloudEvent = CloudEventCodec;
export type CloudEvent = t.TypeOf<typeof CloudEvent>;
