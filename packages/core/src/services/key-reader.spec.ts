import { randomBytes } from "node:crypto";
import { link, mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeKeyFiles } from "../adapters/node-key-files.js";
import { ApiKeyRefCodec } from "../domain/key-reference.js";
import { createKeyReader, type KeySources } from "./key-reader.js";

let root: string;
let keyDir: string;
let dataDir: string;
const masterKey = randomBytes(32);

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "key-reader-"));
  keyDir = join(root, "keys");
  dataDir = join(root, "data");
  await mkdir(keyDir);
  await mkdir(dataDir);
  await writeFile(join(dataDir, "master.key"), `${randomBytes(32).toString("base64")}\n`);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const sources = (): KeySources => ({
  env: {},
  keyDir,
  dataDir,
  masterKeyFile: join(dataDir, "master.key"),
  masterKeys: [masterKey],
});
const reader = (overrides: Partial<KeySources> = {}) => createKeyReader(nodeKeyFiles, { ...sources(), ...overrides });
const read = async (reference: string, overrides: Partial<KeySources> = {}) => {
  const result = await reader(overrides).read(reference)();
  return E.isRight(result) ? { key: result.right.reveal() } : { problem: result.left };
};

/** Kubernetes' layout of a mounted Secret: NAME -> ..data/NAME, ..data -> a timestamped directory. */
const kubernetesSecret = async (name: string, key: string, stamp: string) => {
  await mkdir(join(keyDir, stamp));
  await writeFile(join(keyDir, stamp, name), key);
  await symlink(stamp, join(keyDir, "..data"));
  await symlink(join("..data", name), join(keyDir, name));
};
/** Kubernetes' update: a new timestamped directory, then ..data swapped to it by one rename (atomic). */
const kubernetesSwap = async (name: string, key: string, stamp: string) => {
  await mkdir(join(keyDir, stamp));
  await writeFile(join(keyDir, stamp, name), key);
  await symlink(stamp, join(keyDir, "..data_tmp"));
  await rename(join(keyDir, "..data_tmp"), join(keyDir, "..data"));
};

describe("createKeyReader (SPEC §12: keys kept elsewhere, the CLI's configuration files)", () => {
  it("reads a file in SDWAN_APIKEY_DIR, its text trimmed and decoded as an apiKey", async () => {
    await writeFile(join(keyDir, "lab"), "  key-of-lab\n");
    expect(await read("file:lab")).toEqual({ key: "key-of-lab" });
    await writeFile(join(keyDir, "blank"), " \n");
    expect(await read("file:blank")).toEqual({
      problem: "file:blank: does not hold a valid apiKey: must not be empty",
    });
  });

  it("follows Kubernetes' atomic ..data swap: the next read gives the new key", async () => {
    await kubernetesSecret("lab", "key-one\n", "..2026_11_27_10_00_00.1");
    expect(await read("file:lab")).toEqual({ key: "key-one" });
    await kubernetesSwap("lab", "key-two\n", "..2026_11_27_10_05_00.2");
    expect(await read("file:lab")).toEqual({ key: "key-two" });
  });

  it("refuses a link out of the directory, a path through '..', the data directory and the master key file", async () => {
    const outside = join(root, "outside");
    await writeFile(outside, "key-outside");
    await symlink(outside, join(keyDir, "out"));
    expect((await read("file:out")).problem).toMatch(/^file:out: is outside SDWAN_APIKEY_DIR/);
    expect((await read("file:../outside")).problem).toMatch(/is outside SDWAN_APIKEY_DIR/);
    expect(E.isLeft(ApiKeyRefCodec.decode("file:../outside"))).toBe(true);
    expect(E.isLeft(ApiKeyRefCodec.decode("file:/etc/passwd"))).toBe(true);
    await writeFile(join(dataDir, "store"), "key-in-data");
    await symlink(join(dataDir, "store"), join(keyDir, "data"));
    expect((await read("file:data")).problem).toMatch(/is in the data directory/);
    await link(join(dataDir, "master.key"), join(keyDir, "hard"));
    // Inside the key directory by its path, but the master key file itself.
    expect((await read("file:hard", { dataDir: join(root, "elsewhere") })).problem).toMatch(/master key/);
    // A key directory inside the data directory reaches nothing.
    expect((await read("file:x", { keyDir: dataDir })).problem).toMatch(/data directory|cannot be read/);
  });

  it("refuses a file that is, or decodes to, a master key: a copy, base64, hex", async () => {
    await writeFile(join(keyDir, "b64"), `${masterKey.toString("base64")}\n`);
    await writeFile(join(keyDir, "hex"), masterKey.toString("hex"));
    for (const name of ["b64", "hex"])
      expect((await read(`file:${name}`)).problem).toBe(
        `file:${name}: is a master key of this deployment, never an apiKey`,
      );
    await writeFile(join(keyDir, "copy"), await readFile(join(dataDir, "master.key")));
    expect((await read("file:copy")).problem).toMatch(/is a master key/);
  });

  it("reads env:SDWAN_APIKEY_… only, and says when it is not set; never the key in a reason", async () => {
    const env = { SDWAN_APIKEY_LAB: "key-from-env", SDWAN_MASTER_KEY: masterKey.toString("base64") };
    expect(await read("env:SDWAN_APIKEY_LAB", { env })).toEqual({ key: "key-from-env" });
    expect(await read("env:SDWAN_APIKEY_NONE", { env })).toEqual({
      problem: "env:SDWAN_APIKEY_NONE: the variable is not set",
    });
    expect((await read("env:SDWAN_MASTER_KEY", { env })).problem).toMatch(/only variables named SDWAN_APIKEY_/);
    expect(E.isLeft(ApiKeyRefCodec.decode("env:SDWAN_MASTER_KEY"))).toBe(true);
    const problems = [await read("env:SDWAN_MASTER_KEY", { env }), await read("file:nothing")];
    for (const { problem } of problems) expect(problem).not.toContain(masterKey.toString("base64"));
  });

  it("refuses file: references without SDWAN_APIKEY_DIR", async () => {
    expect((await read("file:lab", { keyDir: undefined })).problem).toMatch(/until SDWAN_APIKEY_DIR names/);
  });

  it("looks at the directories and the master key file at every read, or once with lookOnce (a file's references)", async () => {
    const env = { SDWAN_APIKEY_A: "key-a", SDWAN_APIKEY_COPY: await readFile(join(dataDir, "master.key"), "utf8") };
    const looks = async (lookOnce: boolean) => {
      let count = 0;
      const { realPath, identity } = nodeKeyFiles;
      const files = { ...nodeKeyFiles, realPath: (path: string) => (count++, realPath(path)) };
      const keys = createKeyReader(
        { ...files, identity: (path) => (count++, identity(path)) },
        { ...sources(), env },
        { lookOnce },
      );
      // The master key file's copy is refused either way.
      for (const [name, answer] of [
        ["A", "key-a"],
        ["COPY", "env:SDWAN_APIKEY_COPY: is a master key of this deployment, never an apiKey"],
      ])
        expect(
          E.toUnion(E.map((key: { reveal(): string }) => key.reveal())(await keys.read(`env:SDWAN_APIKEY_${name}`)())),
        ).toBe(answer);
      return count;
    };
    // The data directory's and the key directory's real paths, the master key file's identity.
    expect(await looks(false)).toBe(6);
    expect(await looks(true)).toBe(3);
  });
});
