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

// A log may tell an entry some time after a reader could already list it (a lowdb change landing after its entry
// was written, a NOTIFY read after the query that saw the row): replayed entries recorded this recently are
// remembered this long after the catch-up, so a late telling is not handed on again. Generous: a miss repeats.
const SEAM_MS = 5 * 60_000;

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
 * filtered by `query`. The new ones heard while catching up are held and handed on after it, those the
 * catch-up already handed left out, and so are those told late (SEAM_MS): no gap and no repeat at the seam.
 * Answers the stop.
 */
export const followEvents =
  (audit: AuditLog) =>
  (query: EventsQuery, deliver: (item: FeedItem) => void): TE.TaskEither<DomainError, () => void> =>
  async () => {
    const send = (entry: AuditEntry): void => {
      const event = pipe(eventOfShared(entry), O.filter(selectsEvent(query)));
      if (O.isSome(event)) deliver({ _tag: "event", event: event.value });
    };
    let catchingUp = true;
    const heard: AuditEntry[] = [];
    // The replayed entries the log may still tell (recorded lately), until SEAM_MS after the catch-up.
    const replayed = new Set<string>();
    let seamEnds = Infinity;
    const live = (entry: AuditEntry): void => {
      if (Date.now() > seamEnds) replayed.clear();
      if (!replayed.delete(entry.id)) send(entry);
    };
    const subscribed = await audit.subscribe((entry) => (catchingUp ? heard.push(entry) : live(entry)))();
    if (E.isLeft(subscribed)) return subscribed;
    const recent = Date.now() - SEAM_MS;
    const caughtUp = await catchUp(audit, query.lastEventId, deliver, (entry) => {
      if (entry.at.getTime() >= recent) replayed.add(entry.id);
      send(entry);
    })();
    if (E.isLeft(caughtUp)) {
      subscribed.right();
      return caughtUp;
    }
    catchingUp = false;
    seamEnds = Date.now() + SEAM_MS;
    for (const entry of heard) live(entry);
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
