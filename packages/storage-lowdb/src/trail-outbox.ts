import { join } from "node:path";
import type { AuditEntry } from "@sdwan-connections/core";
import { readingIfPresent, readIfPresent } from "./errors.js";
import { AUDIT_FILE, committedVersionIn, parse } from "./audit-lines.js";

/** The outbox as the trail holds it: the landed entries after a cursor that name webhooks, and the cursor after them. */
export interface TrailOutbox {
  readonly marked: readonly { readonly entry: AuditEntry; readonly webhooks: readonly string[] }[];
  readonly cursor: string | null;
}

/**
 * The webhooks' outbox in the audit trail's own lines (each names the webhooks its event goes to), read by the
 * webhook store from the file: the trail's appends never wait for it, and it needs nothing of the audit log.
 */
export const openTrailOutbox = (dataDir: string) => {
  const path = join(dataDir, AUDIT_FILE);
  const committedVersion = committedVersionIn(dataDir);
  // Where the outbox was last read up to: the file, the byte after the line of the entry that is the cursor.
  let outboxRead: { readonly file: string; readonly end: number; readonly cursor: string | null } | undefined;

  /**
   * The entries that name webhooks after entry `cursor` (every one when null), in the file's order, up to the first
   * whose change has not landed (yet, or ever): what relays turn into deliveries.
   */
  const after = (cursor: string | null): Promise<TrailOutbox> =>
    readingIfPresent(path, { marked: [], cursor }, async (handle) => {
      // Only what follows the cursor's line when this process read up to it last, in this file (not rewritten since).
      const { ino, birthtimeMs, size } = await handle.stat();
      const file = `${ino}:${birthtimeMs}`; // inodes are reused
      const from =
        outboxRead?.file === file && outboxRead.cursor === cursor && outboxRead.end <= size ? outboxRead.end : 0;
      const bytes = Buffer.alloc(size - from);
      await handle.read(bytes, 0, bytes.length, from);
      const { entries, ends, commits, webhooks: targets } = parse(bytes, from);
      const committed = commits.size === 0 ? 0 : await committedVersion();
      const at = from > 0 || cursor === null ? -1 : entries.findIndex((entry) => entry.id === cursor);
      // Read whole, the entries after the cursor's; after a cursor the trail no longer holds (pruned), the newer ones.
      const before = (index: number, entry: AuditEntry) =>
        from === 0 && cursor !== null && (at === -1 ? entry.id <= cursor : index <= at);
      const marked: { entry: AuditEntry; webhooks: readonly string[] }[] = [];
      let last = cursor;
      let end = at === -1 ? from : (ends[at] ?? from);
      for (const [index, entry] of entries.entries()) {
        if (before(index, entry)) continue;
        if ((commits.get(entry.id) ?? 0) > committed) break;
        const named = targets.get(entry.id);
        if (named !== undefined) marked.push({ entry, webhooks: named });
        last = entry.id;
        end = ends[index] ?? end;
      }
      if (end > 0) outboxRead = { file, end, cursor: last };
      return { marked, cursor: last };
    });

  return {
    after,
    /** The entry `id` while the file holds it (a webhook's redelivery reads a settled delivery's event there). */
    entry: async (id: string): Promise<AuditEntry | undefined> => {
      const bytes = await readIfPresent(path);
      return parse(bytes).entries.find((entry) => entry.id === id);
    },
  };
};
