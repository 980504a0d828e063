import * as t from "io-ts";
import { AuditEntryCodec } from "../domain/audit.js";
import { CloudEventCodec } from "../domain/events.js";

// An entry is the domain's codec.
export const AuditEntry = AuditEntryCodec;
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
