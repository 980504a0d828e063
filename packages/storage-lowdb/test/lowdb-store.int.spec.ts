import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readdir, readFile, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ApiKey, type Alias, type DomainError, type OrchestratorUrl } from "@sdwan-connections/core";
import { aConnection, anAuditEntry } from "@sdwan-connections/core/testing";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it, vi } from "vitest";
import { AUDIT_FILE, createLowdbAuditLog } from "../src/audit-file.js";
import { createLowdbConnectionRepository } from "../src/connection-repository.js";
import { openConnectionsFile } from "../src/connections-file.js";
import { DurableFileAdapter } from "../src/durable-file-adapter.js";
import { describeConnectionsFileError, type ConnectionsFileError } from "../src/errors.js";
import { FILE_FORMAT, SCHEMA_VERSION } from "../src/file-format.js";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { WRITE_PROBE_FILE } from "../src/write-probe.js";
import { keyringOf, MASTER_KEY, openOrThrow, OTHER_MASTER_KEY, run, temporaryDirectory } from "./support.js";

const SECRET = "sEcReT-kEy/with+base64=chars-ünïcødé-✓";
const alias = (value: string) => value as Alias;
const url = (value: string) => value as OrchestratorUrl;
const fileIn = (dataDir: string) => join(dataDir, "connections.json");

const encodings = (secret: string): string[] => [
  secret,
  ...(["base64", "base64url", "hex"] as const).map((encoding) => Buffer.from(secret).toString(encoding)),
];

const openFailure = async (dataDir: string, keyring = keyringOf()): Promise<ConnectionsFileError> => {
  const opened = await openConnectionsFile({ dataDir, keyring })();
  if (E.isRight(opened)) {
    await opened.right.close();
    throw new Error("expected the start to be refused");
  }
  return opened.left;
};

const failureOf = async <A>(task: () => Promise<E.Either<DomainError, A>>): Promise<DomainError> => {
  const result = await task();
  if (E.isRight(result)) throw new Error("expected a failure");
  return result.left;
};

/** A store with two connections written with MASTER_KEY, closed again. */
const seeded = async (dataDir: string): Promise<void> => {
  const file = await openOrThrow({ dataDir });
  const repository = createLowdbConnectionRepository(file);
  await run(repository.insert(aConnection({ alias: "Lab", apiKey: SECRET })));
  await run(repository.insert(aConnection({ alias: "prod", apiKey: "prod-key-0123456789" })));
  await file.close();
};

describe("the connections file", () => {
  it("makes no change whose audit entry cannot be written, and refuses an entry when opened without its audit trail", async () => {
    await using directory = await temporaryDirectory();
    await seeded(directory.path);
    // The audit trail's file cannot be appended to (a directory in its place).
    await mkdir(join(directory.path, "audit.jsonl"));
    const audit = createLowdbAuditLog({ dataDir: directory.path, lockStaleMs: 2000 });
    const file = await openOrThrow({ dataDir: directory.path, audit: audit.journal });
    const repository = createLowdbConnectionRepository(file);
    const before = await readFile(fileIn(directory.path), "utf8");
    expect(
      (await failureOf(repository.insert(aConnection({ alias: "new" }), anAuditEntry({ action: "add" }))))._tag,
    ).toBe("StorageFailure");
    expect(
      (
        await failureOf(
          repository.update(
            alias("lab"),
            { orchestratorUrl: url("https://moved.example.net") },
            undefined,
            anAuditEntry(),
          ),
        )
      )._tag,
    ).toBe("StorageFailure");
    expect(
      (await failureOf(repository.delete(alias("prod"), undefined, anAuditEntry({ action: "delete" }))))._tag,
    ).toBe("StorageFailure");
    expect(await readFile(fileIn(directory.path), "utf8")).toBe(before);
    expect((await failureOf(repository.get(alias("new"))))._tag).toBe("NotFound");
    expect((await run(repository.get(alias("lab")))).orchestratorUrl).not.toBe("https://moved.example.net");
    // Without an entry the same file still writes.
    await run(repository.insert(aConnection({ alias: "unaudited" })));
    await file.close();
    await audit.close();

    const bare = await openOrThrow({ dataDir: directory.path });
    expect(
      await failureOf(
        createLowdbConnectionRepository(bare).insert(aConnection({ alias: "other" }), anAuditEntry({ action: "add" })),
      ),
    ).toMatchObject({
      _tag: "StorageFailure",
      reason: expect.stringContaining("without its audit trail"),
    });
    await bare.close();
  });

  it("is created on first start with mode 0600 in a 0700 directory, with format and schema version", async () => {
    await using directory = await temporaryDirectory();
    const dataDir = join(directory.path, "nested", "data");
    const file = await openOrThrow({ dataDir });
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(fileIn(dataDir))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(fileIn(dataDir), "utf8"))).toEqual({
      format: FILE_FORMAT,
      version: SCHEMA_VERSION,
      lastVersion: 0,
      connections: [],
    });
    await run(createLowdbConnectionRepository(file).insert(aConnection({ alias: "lab" })));
    // Every write replaces the file: the replacement must be 0600 too.
    expect((await stat(fileIn(dataDir))).mode & 0o777).toBe(0o600);
    await file.close();
  });

  it("holds no apiKey in plain text, base64 or hex, after adds, updates and a rotation, nor in any other file", async () => {
    await using directory = await temporaryDirectory();
    const file = await openOrThrow({ dataDir: directory.path });
    const repository = createLowdbConnectionRepository(file);
    await run(repository.insert(aConnection({ alias: "lab", apiKey: SECRET })));
    await run(repository.update(alias("LAB"), { apiKey: ApiKey.unsafeFrom(`${SECRET}-2`) }));
    await run(repository.update(alias("lab"), { orchestratorUrl: url("https://moved.example.net") }));
    await file.close();
    const rotated = await openOrThrow({ dataDir: directory.path, keyring: keyringOf(OTHER_MASTER_KEY, [MASTER_KEY]) });
    await run(rotated.rotate());
    await rotated.close();
    for (const name of await readdir(directory.path)) {
      const path = join(directory.path, name);
      if (!(await stat(path)).isFile()) continue;
      const text = await readFile(path, "utf8");
      for (const needle of [...encodings(SECRET), ...encodings(`${SECRET}-2`)]) expect(text).not.toContain(needle);
    }
    expect(await readFile(fileIn(directory.path), "utf8")).toContain("moved.example.net");
  });

  it("keeps each connection on its own line, readable by a person", async () => {
    await using directory = await temporaryDirectory();
    await seeded(directory.path);
    const lines = (await readFile(fileIn(directory.path), "utf8")).trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^\{"alias":"Lab","orchestratorUrl":"[^"]+","sealedApiKey":"v2\.[0-9a-f]{8}\./);
  });
});

describe("concurrency in one process", () => {
  it("persists all of 1,000 concurrent adds", async () => {
    await using directory = await temporaryDirectory();
    const file = await openOrThrow({ dataDir: directory.path });
    const repository = createLowdbConnectionRepository(file);
    const aliases = Array.from({ length: 1000 }, (_, i) => `conn-${i}`);
    await Promise.all(aliases.map((a) => run(repository.insert(aConnection({ alias: a, apiKey: `key-${a}` })))));
    await file.close();
    const stored = JSON.parse(await readFile(fileIn(directory.path), "utf8")) as { connections: { alias: string }[] };
    expect(stored.connections.map((c) => c.alias).sort()).toEqual([...aliases].sort());
    const reopened = createLowdbConnectionRepository(await openOrThrow({ dataDir: directory.path }));
    expect((await run(reopened.get(alias("conn-999")))).apiKey.reveal()).toBe("key-conn-999");
  });

  it("persists every one of many concurrent updates, across two handles of the file", async () => {
    await using directory = await temporaryDirectory();
    const one = createLowdbConnectionRepository(await openOrThrow({ dataDir: directory.path }));
    const two = createLowdbConnectionRepository(await openOrThrow({ dataDir: directory.path }));
    const aliases = Array.from({ length: 40 }, (_, i) => `conn-${i}`);
    await Promise.all(aliases.map((a) => run(one.insert(aConnection({ alias: a })))));
    await Promise.all(
      aliases.flatMap((a) => [
        run(one.update(alias(a), { orchestratorUrl: url(`https://${a}.example.net/`) })),
        run(two.update(alias(a.toUpperCase()), { apiKey: ApiKey.unsafeFrom(`new-${a}`) })),
      ]),
    );
    const reopened = createLowdbConnectionRepository(await openOrThrow({ dataDir: directory.path }));
    for (const a of aliases) {
      const stored = await run(reopened.get(alias(a)));
      expect([stored.orchestratorUrl, stored.apiKey.reveal()]).toEqual([`https://${a}.example.net/`, `new-${a}`]);
    }
  });
});

describe("a start", () => {
  it.each([
    ["garbage", `{"format":"${FILE_FORMAT}","version":1,"connections":[ ${SECRET}`, /not valid JSON/],
    ["broken JSON", `{"format":"${FILE_FORMAT}",,"secret":"${SECRET}"}`, /not valid JSON near character \d+/],
    ["an empty file", "", /the file is empty/],
    ["another JSON document", `[{"apiKey":"${SECRET}"}]`, /not a JSON object/],
    ["a file of another format", `{"apiKey":"${SECRET}"}`, /not a connections file/],
    [
      "a record with a plain apiKey",
      `{"format":"${FILE_FORMAT}","version":1,"connections":[{"alias":"lab","orchestratorUrl":"https://x.example.net","apiKey":"${SECRET}"}]}`,
      /connections\.0\.apiKey is not a known field/,
    ],
    [
      "a bad URL",
      `{"format":"${FILE_FORMAT}","version":1,"connections":[{"alias":"lab","orchestratorUrl":"ftp://${SECRET}","sealedApiKey":"v1.00000000.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AA"}]}`,
      /connections\.0\.orchestratorUrl must use http or https/,
    ],
  ])("refuses %s as corrupt, never echoing its content, and leaves it untouched", async (_case, content, reason) => {
    await using directory = await temporaryDirectory();
    await writeFile(fileIn(directory.path), content, { mode: 0o600 });
    const error = await openFailure(directory.path);
    expect(error._tag).toBe("FileCorrupt");
    const message = describeConnectionsFileError(error);
    expect(message).toMatch(reason);
    expect(message).toContain(fileIn(directory.path));
    for (const needle of encodings(SECRET)) expect(message).not.toContain(needle);
    expect(await readFile(fileIn(directory.path), "utf8")).toBe(content);
  });

  it("refuses a repeated alias as corrupt", async () => {
    await using directory = await temporaryDirectory();
    await seeded(directory.path);
    const text = await readFile(fileIn(directory.path), "utf8");
    const document = JSON.parse(text) as { connections: unknown[] };
    document.connections.push({ ...(document.connections[0] as object), alias: "LAB" });
    await writeFile(fileIn(directory.path), JSON.stringify(document));
    expect(describeConnectionsFileError(await openFailure(directory.path))).toMatch(
      /connections\.2\.alias repeats an earlier alias/,
    );
  });

  it("refuses a file of a newer schema version and leaves it untouched", async () => {
    await using directory = await temporaryDirectory();
    const content = JSON.stringify({
      format: FILE_FORMAT,
      version: SCHEMA_VERSION + 1,
      connections: [],
      newField: true,
    });
    await writeFile(fileIn(directory.path), content);
    const error = await openFailure(directory.path);
    expect(error).toMatchObject({ _tag: "FutureVersion", version: SCHEMA_VERSION + 1 });
    expect(describeConnectionsFileError(error)).toContain(
      `schema version ${SCHEMA_VERSION + 1}, newer than the ${SCHEMA_VERSION} this version understands`,
    );
    expect(await readFile(fileIn(directory.path), "utf8")).toBe(content);
  });

  it("refuses a file it cannot read", async () => {
    await using directory = await temporaryDirectory();
    await mkdir(fileIn(directory.path));
    expect(await openFailure(directory.path)).toMatchObject({ _tag: "FileUnreadable" });
  });

  it("reports a wrong master key as such, naming neither the key nor any apiKey", async () => {
    await using directory = await temporaryDirectory();
    await seeded(directory.path);
    const before = await readFile(fileIn(directory.path), "utf8");
    const error = await openFailure(directory.path, keyringOf(OTHER_MASTER_KEY));
    expect(error._tag).toBe("WrongMasterKey");
    const message = describeConnectionsFileError(error);
    expect(message).toMatch(/wrong master key/);
    expect(message).not.toMatch(/corrupt/);
    for (const needle of [...encodings(SECRET), MASTER_KEY.toString("base64"), OTHER_MASTER_KEY.toString("base64")]) {
      expect(message).not.toContain(needle);
    }
    expect(await readFile(fileIn(directory.path), "utf8")).toBe(before);
  });
  it("that only reads writes nothing in the data directory: no lock registration, no dead writer's file looked for; its first write does both (issue 40)", async () => {
    await using directory = await temporaryDirectory();
    await seeded(directory.path);
    for (const file of ["connections.json", AUDIT_FILE])
      await rm(join(directory.path, `${file}.lock.users`), { recursive: true, force: true });
    const dead = spawn(process.execPath, ["-e", ""]);
    await once(dead, "exit");
    const leftByTheDead = `.connections.json.${dead.pid}.0badc0de.tmp`;
    await writeFile(join(directory.path, leftByTheDead), "half a file");
    const before = (await readdir(directory.path)).sort();

    const reader = await openLowdbStorage({ dataDir: directory.path, keyring: keyringOf() })();
    if (E.isLeft(reader)) throw new Error(reader.left._tag);
    expect((await run(reader.right.repository.list())).map((connection) => connection.alias)).toEqual(["Lab", "prod"]);
    await reader.right.close();
    expect((await readdir(directory.path)).sort()).toEqual(before);

    const writer = await openLowdbStorage({ dataDir: directory.path, keyring: keyringOf() })();
    if (E.isLeft(writer)) throw new Error(writer.left._tag);
    await run(writer.right.repository.insert(aConnection({ alias: "third" })));
    const after = await readdir(directory.path);
    expect(after).toContain("connections.json.lock.users");
    expect(after).not.toContain(leftByTheDead);
    await writer.right.close();
  });

  it("that only reads leaves what a crash left at the audit trail's end to the next writer, which mends it (issue 40)", async () => {
    await using directory = await temporaryDirectory();
    const seeding = await openLowdbStorage({ dataDir: directory.path, keyring: keyringOf() })();
    if (E.isLeft(seeding)) throw new Error(seeding.left._tag);
    await run(seeding.right.audit.record(anAuditEntry()));
    await seeding.right.close();
    const trail = join(directory.path, AUDIT_FILE);
    await writeFile(trail, '{"id":"cut short', { flag: "a" });
    const torn = await readFile(trail, "utf8");

    const reader = await openLowdbStorage({ dataDir: directory.path, keyring: keyringOf(), readsOnly: true })();
    if (E.isLeft(reader)) throw new Error(reader.left._tag);
    expect(await run(reader.right.repository.list())).toEqual([]);
    expect(await run(reader.right.audit.list({ limit: 10 }))).toHaveLength(1);
    await reader.right.close();
    expect(await readFile(trail, "utf8")).toBe(torn);

    const start = await openLowdbStorage({ dataDir: directory.path, keyring: keyringOf() })();
    if (E.isLeft(start)) throw new Error(start.left._tag);
    await start.right.close();
    expect(await readFile(trail, "utf8")).toBe(torn.slice(0, torn.lastIndexOf("\n") + 1));
  });
});

describe("while running", () => {
  it("opens a stored key once per version: reads of an unchanged connection do not decrypt it again (issue 40)", async () => {
    await using directory = await temporaryDirectory();
    const keyring = keyringOf();
    let opens = 0;
    const counting = { ...keyring, open: (sealed: string, data: string) => ((opens += 1), keyring.open(sealed, data)) };
    const file = await openOrThrow({ dataDir: directory.path, keyring: counting });
    const repository = createLowdbConnectionRepository(file);
    await run(repository.insert(aConnection({ alias: "lab", apiKey: SECRET })));
    const before = opens;
    for (let i = 0; i < 3; i += 1) expect((await run(repository.get(alias("lab")))).apiKey.reveal()).toBe(SECRET);
    expect(opens - before).toBe(1);
    // A change is another record: its key is opened again, and is the new one.
    await run(repository.update(alias("lab"), { apiKey: ApiKey.unsafeFrom("another-key") }));
    expect((await run(repository.get(alias("lab")))).apiKey.reveal()).toBe("another-key");
    expect(opens - before).toBeGreaterThanOrEqual(2);
    await file.close();
  });

  it("checks the file once for the reads asked for in one turn, each seeing what another handle wrote before it (issue 40)", async () => {
    await using directory = await temporaryDirectory();
    const file = await openOrThrow({ dataDir: directory.path });
    const other = await openOrThrow({ dataDir: directory.path });
    const repository = createLowdbConnectionRepository(file);
    await run(repository.list());
    const stats = vi.spyOn(DurableFileAdapter.prototype, "isCurrent");
    try {
      // 50 reads in one turn, nothing changed: one stat (the old code made one per read).
      expect(await Promise.all(Array.from({ length: 50 }, () => run(repository.list())))).toEqual(
        Array.from({ length: 50 }, () => []),
      );
      expect(stats).toHaveBeenCalledTimes(1);
      // A change written by another handle (as by another process) before the reads are asked for: each one sees it.
      await run(createLowdbConnectionRepository(other).insert(aConnection({ alias: "lab" })));
      const lists = await Promise.all(Array.from({ length: 50 }, () => run(repository.list())));
      expect(lists.map((list) => list.map(({ alias }) => alias))).toEqual(Array.from({ length: 50 }, () => ["lab"]));
    } finally {
      stats.mockRestore();
      await other.close();
      await file.close();
    }
  });

  it("sees changes another handle made, and refuses to overwrite a file corrupted meanwhile", async () => {
    await using directory = await temporaryDirectory();
    const file = await openOrThrow({ dataDir: directory.path });
    const repository = createLowdbConnectionRepository(file);
    await run(repository.insert(aConnection({ alias: "lab" })));
    await writeFile(fileIn(directory.path), `not json ${SECRET}`);
    const readError = await failureOf(repository.list());
    expect(readError).toMatchObject({ _tag: "StorageFailure" });
    const writeError = await failureOf(repository.insert(aConnection({ alias: "other" })));
    expect(writeError._tag).toBe("StorageFailure");
    expect(JSON.stringify([readError, writeError])).not.toContain(SECRET);
    expect(await readFile(fileIn(directory.path), "utf8")).toBe(`not json ${SECRET}`);
    expect((await failureOf(repository.ping()))._tag).toBe("StorageFailure");
    await file.close();
  });

  it("is not ready while no file can be written in the data directory (as on a full disk), and ready again after", async () => {
    await using directory = await temporaryDirectory();
    const repository = createLowdbConnectionRepository(await openOrThrow({ dataDir: directory.path }));
    // A directory where the probe writes its file: the write fails even for root, as it would on a full disk.
    await mkdir(join(directory.path, WRITE_PROBE_FILE));
    expect(await failureOf(repository.ping())).toEqual({
      _tag: "StorageFailure",
      reason: `The data directory ${directory.path} cannot be written: EISDIR.`,
    });
    await rmdir(join(directory.path, WRITE_PROBE_FILE));
    // The answer is reused for a second, so readiness polled often stays cheap.
    await expect.poll(async () => E.isRight(await repository.ping()()), { timeout: 5_000 }).toBe(true);
    expect(await readdir(directory.path)).not.toContain(WRITE_PROBE_FILE);
  });

  it("is not ready while its audit trail cannot be appended to, and ready again once it can", async () => {
    await using directory = await temporaryDirectory();
    const audit = createLowdbAuditLog({ dataDir: directory.path, lockStaleMs: 2000 });
    const repository = createLowdbConnectionRepository(
      await openOrThrow({ dataDir: directory.path, audit: audit.journal }),
    );
    await run(repository.ping());
    // The trail's file cannot be appended to (a directory in its place): the attempt's entry is not recorded.
    await mkdir(join(directory.path, "audit.jsonl"));
    expect((await failureOf(audit.record(anAuditEntry())))._tag).toBe("StorageFailure");
    expect(await failureOf(repository.ping())).toEqual({
      _tag: "StorageFailure",
      reason: `The audit trail ${join(directory.path, "audit.jsonl")} cannot be appended to: EISDIR.`,
    });
    await rmdir(join(directory.path, "audit.jsonl"));
    // The check's own test append succeeds now, and leaves nothing behind.
    await run(repository.ping());
    expect(await readFile(join(directory.path, "audit.jsonl"), "utf8")).toBe("");
    await audit.close();
  });

  it("detects an apiKey moved to another record (it was sealed for its own alias)", async () => {
    await using directory = await temporaryDirectory();
    await seeded(directory.path);
    const document = JSON.parse(await readFile(fileIn(directory.path), "utf8")) as {
      connections: { sealedApiKey: string }[];
    };
    const [lab, prod] = document.connections as [{ sealedApiKey: string }, { sealedApiKey: string }];
    [lab.sealedApiKey, prod.sealedApiKey] = [prod.sealedApiKey, lab.sealedApiKey];
    await writeFile(fileIn(directory.path), JSON.stringify(document));
    const repository = createLowdbConnectionRepository(await openOrThrow({ dataDir: directory.path }));
    const error = await failureOf(repository.get(alias("lab")));
    expect(error._tag).toBe("StorageFailure");
    expect(JSON.stringify(error)).toMatch(/failed authentication/);
    for (const needle of [...encodings(SECRET), ...encodings("prod-key-0123456789")])
      expect(JSON.stringify(error)).not.toContain(needle);
  });
});

describe("master key rotation", () => {
  it("re-seals every record with the new key while the old one still decrypts, after which the old key is not needed", async () => {
    await using directory = await temporaryDirectory();
    await seeded(directory.path);
    const during = await openOrThrow({ dataDir: directory.path, keyring: keyringOf(OTHER_MASTER_KEY, [MASTER_KEY]) });
    const repository = createLowdbConnectionRepository(during);
    // Before rotating: old records still open, new writes use the new key.
    expect((await run(repository.get(alias("lab")))).apiKey.reveal()).toBe(SECRET);
    await run(repository.insert(aConnection({ alias: "new", apiKey: "new-key" })));
    expect(await run(during.rotate())).toEqual({ rotated: 2, total: 3 });
    expect(await run(during.rotate())).toEqual({ rotated: 0, total: 3 });
    await during.close();

    const newKeyId = keyringOf(OTHER_MASTER_KEY).currentKeyId;
    const document = JSON.parse(await readFile(fileIn(directory.path), "utf8")) as {
      connections: { sealedApiKey: string }[];
    };
    expect(document.connections.every((c) => c.sealedApiKey.startsWith(`v2.${newKeyId}.`))).toBe(true);

    const after = createLowdbConnectionRepository(
      await openOrThrow({ dataDir: directory.path, keyring: keyringOf(OTHER_MASTER_KEY) }),
    );
    expect((await run(after.get(alias("LAB")))).apiKey.reveal()).toBe(SECRET);
    expect((await run(after.get(alias("prod")))).apiKey.reveal()).toBe("prod-key-0123456789");
    expect((await run(after.get(alias("new")))).apiKey.reveal()).toBe("new-key");
    expect((await openFailure(directory.path, keyringOf(MASTER_KEY)))._tag).toBe("WrongMasterKey");
  });
});
