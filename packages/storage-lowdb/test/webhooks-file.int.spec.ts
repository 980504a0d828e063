import { randomBytes, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expectRight } from "@sdwan-connections/core/testing";
import { describe, expect, it } from "vitest";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { WEBHOOKS_FILE } from "../src/webhooks-file.js";
import { keyringOf, temporaryDirectory } from "./support.js";

describe("webhooks.json", () => {
  it("keeps secrets sealed, and a master-key rotation re-seals them so that the new key alone opens them", async () => {
    await using directory = await temporaryDirectory();
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const open = (key: Buffer, previous: Buffer[] = []) =>
      expectRight(openLowdbStorage({ dataDir: directory.path, keyring: keyringOf(key, previous), lockStaleMs: 2000 }));
    const webhook = {
      id: randomUUID(),
      url: "https://nms.example/opennms/rest/events",
      types: ["*"],
      kind: "opennms" as const,
      createdAt: new Date(),
      disabledAt: null,
    };
    const secrets = {
      secret: `whsec_${randomBytes(32).toString("base64")}`,
      credentials: { username: "u", password: "the-password" },
    };
    const first = await open(oldKey);
    await expectRight(first.webhooks.create(webhook, secrets));
    await first.close();
    const file = await readFile(join(directory.path, WEBHOOKS_FILE), "utf8");
    expect(file).not.toContain(secrets.secret.slice("whsec_".length));
    expect(file).not.toContain("the-password");

    const rotating = await open(newKey, [oldKey]);
    expect(await expectRight(rotating.webhooks.resealSecrets())).toEqual({ rotated: 1, total: 1 });
    await rotating.close();
    const rotated = await open(newKey);
    try {
      expect(await expectRight(rotated.webhooks.secrets(webhook.id))).toEqual(secrets);
    } finally {
      await rotated.close();
    }
  });
});
