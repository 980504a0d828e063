import { join } from "node:path";
import { webhooksFor, type Webhook } from "@sdwan-connections/core";
import { AuditEntry } from "@sdwan-connections/core/wire";
import { readingIfPresent } from "./errors.js";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { CONNECTIONS_FILE } from "./file-format.js";

// The audit trail's lines: what each holds, how a reader takes them, and how the trail's end is told sound.

/** Name of the audit trail's file inside the data directory: one JSON entry per line, oldest first. */
export const AUDIT_FILE = "audit.jsonl";

// Exact: a change's entry also carries `commit` (see AuditJournal), which lists do not show. `version` and
// `orchestratorUrl` are absent from entries that have none, and from lines written before they were kept.
export const AuditLine = t.exact(AuditEntry);
export const CommitMark = t.type({ commit: t.number });
// The outbox: the ids of the webhooks an entry's event is delivered to, written in the entry's own line.
export const WebhooksMark = t.type({ webhooks: t.array(t.string) });

/** Which webhooks an entry goes to (their ids; none when it is not an event). */
export type Targets = (entry: AuditEntry) => readonly string[];

export const line = (entry: AuditEntry, targets: Targets, commit?: number): string => {
  const webhooks = targets(entry);
  return `${JSON.stringify({
    ...AuditLine.encode(entry),
    ...(commit === undefined ? {} : { commit }),
    ...(webhooks.length === 0 ? {} : { webhooks }),
  })}\n`;
};

export const targetsOf =
  (webhooks: readonly Webhook[]): Targets =>
  (entry) =>
    webhooksFor(entry, webhooks).map((webhook) => webhook.id);

export const decodeLine = (raw: string): E.Either<unknown, unknown> =>
  E.tryCatch(
    () => JSON.parse(raw) as unknown,
    (error) => error,
  );

/**
 * The trail as read: its entries, where each one's line ends (the byte after its newline, in the file), the store
 * version each change's entry awaits (`commit`, by id), and the numbers of the lines that are not one (never their
 * content: it may be anything).
 */
export interface ReadTrail {
  readonly entries: AuditEntry[];
  readonly ends: number[];
  readonly commits: Map<string, number>;
  /** The webhooks each entry's event goes to (by id), for the entries that name any. */
  readonly webhooks: Map<string, readonly string[]>;
  readonly damaged: number[];
}

/**
 * Every complete line of `bytes` (the file from byte `from` on), decoded; a last line without its newline is an
 * append under way or cut short, and is skipped.
 */
export const parse = (bytes: Buffer, from = 0): ReadTrail => {
  const trail: ReadTrail = { entries: [], ends: [], commits: new Map(), webhooks: new Map(), damaged: [] };
  for (let start = 0, index = 1, end = bytes.indexOf(0x0a); end !== -1; index += 1) {
    const json = decodeLine(bytes.toString("utf8", start, end));
    const decoded = E.flatMap((value: unknown) => AuditLine.decode(value))(json);
    if (E.isLeft(decoded)) trail.damaged.push(index);
    else {
      trail.entries.push(decoded.right as AuditEntry);
      trail.ends.push(from + end + 1);
      const mark = E.flatMap((value: unknown) => CommitMark.decode(value))(json);
      if (E.isRight(mark)) trail.commits.set(decoded.right.id, mark.right.commit);
      const targets = E.flatMap((value: unknown) => WebhooksMark.decode(value))(json);
      if (E.isRight(targets)) trail.webhooks.set(decoded.right.id, targets.right.webhooks);
    }
    start = end + 1;
    end = bytes.indexOf(0x0a, start);
  }
  return trail;
};

/**
 * The store version connections.json holds now (its `lastVersion`, 0 without a file): read from the header
 * the file format writes first, the whole file only when the header is not the usual one.
 */
export const committedVersionIn = (dataDir: string) => (): Promise<number> =>
  readingIfPresent(join(dataDir, CONNECTIONS_FILE), 0, async (handle) => {
    const head = Buffer.alloc(256);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const found = /^\{"format":"[^"]*","version":\d+,"lastVersion":(\d+),/.exec(head.toString("utf8", 0, bytesRead));
    if (found !== null) return Number(found[1]);
    const whole = decodeLine(await handle.readFile("utf8"));
    const lastVersion = E.isRight(whole) ? (whole.right as { lastVersion?: unknown } | null)?.lastVersion : undefined;
    return typeof lastVersion === "number" ? lastVersion : 0;
  });

/**
 * Where the sound part of the trail ends, seen from its last `window` bytes (undefined: look further back): at
 * its last newline (after it, an append cut short), and before the lines that end it and record a change
 * that never reached connections.json (their `commit` above the version it holds).
 */
export const soundEndIn = async (
  tail: Buffer,
  from: number,
  committedVersion: () => Promise<number>,
): Promise<number | undefined> => {
  let end = tail.lastIndexOf(0x0a) + 1;
  let committed: number | undefined;
  for (;;) {
    if (end === 0) return from === 0 ? 0 : undefined;
    const start = tail.lastIndexOf(0x0a, end - 2) + 1;
    if (start === 0 && from > 0) return undefined;
    const mark = E.flatMap((json: unknown) => CommitMark.decode(json))(
      decodeLine(tail.toString("utf8", start, end - 1)),
    );
    if (E.isLeft(mark)) return from + end;
    committed ??= await committedVersion();
    if (mark.right.commit <= committed) return from + end;
    end = start;
  }
};
