import { mkdtemp, readFile, rm, stat, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { masterKey } from "../src/keyring.js";
import {
  decodeMasterKeyVariables,
  describeMasterKeyError,
  loadMasterKeys as loadKeys,
  type MasterKeyError,
  type MasterKeys,
} from "../src/master-keys.js";

const KEY = Buffer.alloc(32, 7).toString("base64");
const OLD = Buffer.alloc(32, 9).toString("base64");

let root: string;
let dataDir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "sdwan-secrets-"));
  dataDir = join(root, "data");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const loaded = (result: E.Either<MasterKeyError, MasterKeys>): MasterKeys => {
  if (E.isLeft(result)) throw new Error(describeMasterKeyError(result.left));
  return result.right;
};
const refused = (result: E.Either<MasterKeyError, MasterKeys>): string => {
  if (E.isRight(result)) throw new Error("expected a failure");
  return describeMasterKeyError(result.left);
};

// The variables decoded as an embedder without a configuration does, then the keys loaded.
const loadMasterKeys = async ({
  env,
  dataDir,
}: {
  env: Readonly<Record<string, string | undefined>>;
  dataDir: string;
}) => {
  const keys = decodeMasterKeyVariables(env);
  return E.isLeft(keys) ? keys : loadKeys({ ...keys.right, dataDir })();
};

describe("loadMasterKeys", () => {
  it("generates master.key (0600, directory 0700) on first start and reuses it afterwards", async () => {
    const first = loaded(await loadMasterKeys({ env: {}, dataDir }));
    expect(first).toMatchObject({ source: "file", generated: true, previous: [] });
    expect((await stat(join(dataDir, "master.key"))).mode & 0o777).toBe(0o600);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const second = loaded(await loadMasterKeys({ env: {}, dataDir }));
    expect(second.generated).toBe(false);
    expect(second.current.id).toBe(first.current.id);
    expect(second.current.key.equals(first.current.key)).toBe(true);
  });

  it("gives every concurrent first start the same key", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => loadMasterKeys({ env: {}, dataDir })));
    const ids = new Set(results.map((result) => loaded(result).current.id));
    expect(ids.size).toBe(1);
    expect(results.filter((result) => loaded(result).generated)).toHaveLength(1);
  });

  it("takes SDWAN_MASTER_KEY over the file, and writes no file then", async () => {
    const keys = loaded(await loadMasterKeys({ env: { SDWAN_MASTER_KEY: `${KEY}\n` }, dataDir }));
    expect(keys).toMatchObject({ source: "env", generated: false });
    expect(keys.current.id).toBe(masterKey(Buffer.alloc(32, 7)).id);
    await expect(stat(join(dataDir, "master.key"))).rejects.toThrow();
  });

  it("adds SDWAN_MASTER_KEY_PREVIOUS keys for rotation", async () => {
    const keys = loaded(
      await loadMasterKeys({ env: { SDWAN_MASTER_KEY: KEY, SDWAN_MASTER_KEY_PREVIOUS: ` ${OLD} ,` }, dataDir }),
    );
    expect(keys.previous.map((key) => key.id)).toEqual([masterKey(Buffer.alloc(32, 9)).id]);
  });

  it.each([
    ["not base64", "not a key!"],
    ["16 bytes", Buffer.alloc(16, 1).toString("base64")],
    ["33 bytes", Buffer.alloc(33, 1).toString("base64")],
    ["base64url", Buffer.alloc(32, 0xfb).toString("base64url")],
  ])("refuses a SDWAN_MASTER_KEY that is %s, naming the variable but not the value", async (_case, value) => {
    const message = refused(await loadMasterKeys({ env: { SDWAN_MASTER_KEY: value }, dataDir }));
    expect(message).toMatch(/^SDWAN_MASTER_KEY must be the base64 encoding of exactly 32 bytes/);
    expect(message).not.toContain(value);
  });

  it("refuses a bad previous key, naming the variable and entry but not the value", async () => {
    const bad = Buffer.alloc(31, 3).toString("base64");
    const message = refused(
      await loadMasterKeys({ env: { SDWAN_MASTER_KEY: KEY, SDWAN_MASTER_KEY_PREVIOUS: `${OLD},${bad}` }, dataDir }),
    );
    expect(message).toMatch(/^SDWAN_MASTER_KEY_PREVIOUS entry 2 must be/);
    expect(message).not.toContain(bad);
    expect(message).not.toContain(OLD);
  });

  it("refuses a corrupt key file without overwriting it or echoing it", async () => {
    loaded(await loadMasterKeys({ env: {}, dataDir }));
    const path = join(dataDir, "master.key");
    await writeFile(path, "garbage-key-material\n");
    const message = refused(await loadMasterKeys({ env: {}, dataDir }));
    expect(message).toContain(path);
    expect(message).not.toContain("garbage-key-material");
    expect(await readFile(path, "utf8")).toBe("garbage-key-material\n");
  });

  it("refuses a key file other users can read", async () => {
    loaded(await loadMasterKeys({ env: {}, dataDir }));
    const path = join(dataDir, "master.key");
    await chmod(path, 0o644);
    expect(refused(await loadMasterKeys({ env: {}, dataDir }))).toMatch(/mode 0644.*chmod 600/);
  });

  it("reports a data directory it cannot create", async () => {
    await writeFile(join(root, "file"), "");
    expect(refused(await loadMasterKeys({ env: {}, dataDir: join(root, "file", "data") }))).toMatch(
      /cannot be used: (ENOTDIR|EEXIST)/,
    );
  });
});
