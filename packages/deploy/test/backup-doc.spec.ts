import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "./support/kustomize.js";

const REPO_ROOT = join(PACKAGE_ROOT, "../..");
const DOC = readFileSync(join(REPO_ROOT, "docs/deploy.md"), "utf8");
const LOWDB_SOURCES = join(REPO_ROOT, "packages/storage-lowdb/src");

/** The files the embedded store keeps (its `…_FILE` names), but the probe it writes to test the disk. */
const storeFiles = readdirSync(LOWDB_SOURCES)
  .filter((name) => name.endsWith(".ts") && !name.includes(".spec."))
  .flatMap((name) => [
    ...readFileSync(join(LOWDB_SOURCES, name), "utf8").matchAll(/export const (\w+)_FILE = "([^"]+)"/g),
  ])
  .filter(([, constant]) => constant !== "WRITE_PROBE")
  .map(([, , file]) => file ?? "");

describe("docs/deploy.md's backup of the embedded store", () => {
  const backup =
    /^kubectl -n sdwan exec deploy\/sdwan-connections -- sh -c \\\n\s+'(cd \S+ && tar -cf - .*)' > sdwan-backup\.tar$/m.exec(
      DOC,
    )?.[1] ?? "";

  it("copies every file of the store from the embedded overlay's data directory", () => {
    const overlay = readFileSync(join(PACKAGE_ROOT, "overlays/embedded/configmap-patch.yaml"), "utf8");
    const dataDir = /path: \/data\/SDWAN_DATA_DIR\n\s+value: (\S+)/.exec(overlay)?.[1];
    expect(backup).toContain(`cd ${dataDir} && `);
    expect(storeFiles).toEqual(expect.arrayContaining(["connections.json", "audit.jsonl", "grants.json"]));
    expect(storeFiles.filter((file) => !backup.includes(` ${file}`))).toEqual([]);
  });
});
