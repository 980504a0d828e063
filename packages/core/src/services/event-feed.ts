import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { pipe } from "fp-ts/lib/function.js";
import type * as TE from "fp-ts/lib/TaskEither.js";
import type { AuditEntry, AuditHead } from "../domain/audit.js";
import type { DomainError } from "../domain/errors.js";
import { eventOf, selectsEvent, selectsStored, type CloudEvent, type EventsQuery } from "../domain/events.js";
import type { AuditLog } from "../ports/audit-log.js";

/** What a feed hands its reader: an event, or `reset` when the reader's last event is older than what the trail keeps. */
export type FeedItem = { readonly _tag: "event"; readonly event: CloudEvent } | { readonly _tag: "reset" };

/**
 * Hands an item to the reader. A promise answered while catching up is waited for before the next item is read
 * (the reader's backpressure: a slow socket slows the replay, never fills memory); live items are never waited for.
 */
export type FeedDelivery = (item: FeedItem) => void | Promise<void>;

export interface FollowOptions {
  /**
   * Whether the reader may read a connection's events (SPEC §11), asked of each entry's stored alias before
   * anything else is done with it; asked again for every entry, so what it admits may narrow while the feed runs.
   */
  readonly readable?: (alias: string) => boolean;
  /** Told once the feed is open (the query decoded, the log subscribed), before the catch-up: a stream's headers go then. */
  readonly opened?: () => void;
  /** Aborted when the reader is gone: the catch-up stops reading. */
  readonly signal?: AbortSignal;
}

// Entries read per page while catching up.
const REPLAY_PAGE = 100;
// Catch-ups that read and send at once over one log; more wait their turn. Each holds its pages and its reader's
// queue: 50 replays at once grew a process by 110-234 MiB, the faster the machine the more (issue 36, finding 1).
const REPLAYS_AT_ONCE = 8;
const replaySlots = new WeakMap<AuditLog, { free: number; readonly waiting: (() => void)[] }>();
/** A turn to replay over `audit`, once one is free; answers its release. */
const replaySlot = async (audit: AuditLog): Promise<() => void> => {
  const slots = replaySlots.get(audit) ?? { free: REPLAYS_AT_ONCE, waiting: [] };
  replaySlots.set(audit, slots);
  if (slots.free > 0) slots.free -= 1;
  else await new Promise<void>((resolve) => slots.waiting.push(resolve));
  return () => {
    const next = slots.waiting.shift();
    if (next === undefined) slots.free += 1;
    else next();
  };
};
// A log may tell an entry some time after a reader could already list it (a lowdb change landing after its entry
// was written, a NOTIFY read after the query that saw the row): replayed entries recorded this recently are
// remembered this long after the catch-up, so a late telling is not handed on again. Generous: a miss repeats (receivers
// dedupe on the id), while a replay of a long stretch keeps ids of its recent entries only.
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
 * `reset`, when that id is older than the oldest entry kept), read a page at a time as the reader takes them,
 * then every new one as it is recorded, all filtered by what the reader may read, then by `query`, each on the
 * stored entry before it is decoded. The new ones heard while catching up are held and handed on after it, those
 * the catch-up already handed left out, and so are those told late (SEAM_MS): no gap and no repeat at the seam.
 * Answers the stop.
 */
export const followEvents =
  (audit: AuditLog) =>
  (
    query: EventsQuery,
    deliver: FeedDelivery,
    { readable = () => true, opened, signal }: FollowOptions = {},
  ): TE.TaskEither<DomainError, () => void> =>
  async () => {
    // Read through the closure at every entry: a narrowed `readable` applies from the next one.
    const selected = (head: AuditHead) => selectsStored(query, readable)(head);
    const send = (entry: AuditEntry): void | Promise<void> => {
      if (!selected(entry)) return;
      const event = pipe(eventOfShared(entry), O.filter(selectsEvent(query)));
      return O.isSome(event) ? deliver({ _tag: "event", event: event.value }) : undefined;
    };
    let catchingUp = true;
    // Heard while catching up and not replayed yet; and the replayed ones the log may still tell (recorded lately),
    // until SEAM_MS after the catch-up.
    const heard = new Map<string, AuditEntry>();
    const replayed = new Set<string>();
    let seamEnds = Infinity;
    const live = (entry: AuditEntry): void => {
      if (Date.now() > seamEnds) replayed.clear();
      // Kept until the seam ends: a store may tell one entry more than once (its own landing, its file watch).
      if (!replayed.has(entry.id)) void send(entry);
    };
    const subscribed = await audit.subscribe((entry) => {
      if (catchingUp) heard.set(entry.id, entry);
      else live(entry);
    })();
    if (E.isLeft(subscribed)) return subscribed;
    opened?.();
    const recent = Date.now() - SEAM_MS;
    const caughtUp = await catchUp(audit, query.lastEventId, selected, deliver, signal, (entry) => {
      // Replayed: not handed on again when heard meanwhile, nor when told (again) after the catch-up.
      heard.delete(entry.id);
      if (replayed.has(entry.id)) return;
      if (entry.at.getTime() >= recent) replayed.add(entry.id);
      return send(entry);
    })();
    if (E.isLeft(caughtUp)) {
      subscribed.right();
      return caughtUp;
    }
    catchingUp = false;
    seamEnds = Date.now() + SEAM_MS;
    for (const entry of heard.values()) live(entry);
    heard.clear();
    return E.right(subscribed.right);
  };

const catchUp =
  (
    audit: AuditLog,
    lastEventId: string | undefined,
    select: (head: AuditHead) => boolean,
    deliver: FeedDelivery,
    signal: AbortSignal | undefined,
    replay: (entry: AuditEntry) => void | Promise<void>,
  ): TE.TaskEither<DomainError, void> =>
  async () => {
    if (lastEventId === undefined) return E.right(undefined);
    const release = await replaySlot(audit);
    try {
      const oldest = await audit.listAfter(null, 1)();
      if (E.isLeft(oldest)) return oldest;
      const oldestId = oldest.right.entries[0]?.id;
      // Not kept and older than everything kept (or nothing kept at all): what followed it may be gone.
      if (oldestId === undefined || lastEventId < oldestId) {
        await deliver({ _tag: "reset" });
        return E.right(undefined);
      }
      const gone = () => signal?.aborted === true;
      for (let after: string | null = lastEventId; after !== null && !gone();) {
        const page = await audit.listAfter(after, REPLAY_PAGE, select)();
        if (E.isLeft(page)) return page;
        for (const entry of page.right.entries) {
          if (gone()) break;
          const taken = replay(entry);
          if (taken !== undefined) await taken;
        }
        after = page.right.next;
      }
      return E.right(undefined);
    } finally {
      release();
    }
  };
