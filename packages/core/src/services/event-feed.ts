import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { pipe } from "fp-ts/lib/function.js";
import type * as TE from "fp-ts/lib/TaskEither.js";
import type { AuditEntry } from "../domain/audit.js";
import type { DomainError } from "../domain/errors.js";
import { eventOf, selectsEvent, type CloudEvent, type EventsQuery } from "../domain/events.js";
import type { AuditLog } from "../ports/audit-log.js";

/** What a feed hands its reader: an event, or `reset` when the reader's last event is older than what the trail keeps. */
export type FeedItem = { readonly _tag: "event"; readonly event: CloudEvent } | { readonly _tag: "reset" };

// Entries read per page while catching up.
const REPLAY_PAGE = 500;

// A log tells every subscriber the same entry object: its event is made once, however many readers follow.
const events = new WeakMap<AuditEntry, O.Option<CloudEvent>>();
const eventOfShared = (entry: AuditEntry): O.Option<CloudEvent> => {
  const known = events.get(entry) ?? eventOf(entry);
  events.set(entry, known);
  return known;
};

/**
 * Follows the event log (the audit trail) for one reader: the events after `query.lastEventId` first (or
 * `reset`, when that id is older than the oldest entry kept), then every new one as it is recorded, all
 * filtered by what the reader may read (`readable`), then by `query`. The new ones heard while catching up are held and handed on after it, those the
 * catch-up already handed left out: no gap and no repeat at the seam. Answers the stop.
 */
export const followEvents =
  (audit: AuditLog) =>
  (
    query: EventsQuery,
    deliver: (item: FeedItem) => void,
    readable?: (alias: string) => boolean,
  ): TE.TaskEither<DomainError, () => void> =>
  async () => {
    const selects = selectsEvent(query, readable);
    const send = (entry: AuditEntry): void => {
      const event = pipe(eventOfShared(entry), O.filter(selects));
      if (O.isSome(event)) deliver({ _tag: "event", event: event.value });
    };
    let catchingUp = true;
    const heard: AuditEntry[] = [];
    const subscribed = await audit.subscribe((entry) => (catchingUp ? heard.push(entry) : send(entry)))();
    if (E.isLeft(subscribed)) return subscribed;
    const replayed = new Set<string>();
    const caughtUp = await catchUp(audit, query.lastEventId, deliver, (entry) => {
      replayed.add(entry.id);
      send(entry);
    })();
    if (E.isLeft(caughtUp)) {
      subscribed.right();
      return caughtUp;
    }
    catchingUp = false;
    for (const entry of heard) if (!replayed.has(entry.id)) send(entry);
    return E.right(subscribed.right);
  };

const catchUp =
  (
    audit: AuditLog,
    lastEventId: string | undefined,
    deliver: (item: FeedItem) => void,
    replay: (entry: AuditEntry) => void,
  ): TE.TaskEither<DomainError, void> =>
  async () => {
    if (lastEventId === undefined) return E.right(undefined);
    const oldest = await audit.listAfter(null, 1)();
    if (E.isLeft(oldest)) return oldest;
    const oldestId = oldest.right[0]?.id;
    // Not kept and older than everything kept (or nothing kept at all): what followed it may be gone.
    if (oldestId === undefined || lastEventId < oldestId) {
      deliver({ _tag: "reset" });
      return E.right(undefined);
    }
    for (let after = lastEventId; ;) {
      const page = await audit.listAfter(after, REPLAY_PAGE)();
      if (E.isLeft(page)) return page;
      page.right.forEach(replay);
      const last = page.right.at(-1);
      if (last === undefined || page.right.length < REPLAY_PAGE) return E.right(undefined);
      after = last.id;
    }
  };
