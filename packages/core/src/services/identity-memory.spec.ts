import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { ApiKey } from "../domain/api-key.js";
import type { OrchestratorUrl } from "../domain/codecs.js";
import type { OrchestratorTarget } from "../domain/connection.js";
import { createIdentityMemory } from "./identity-memory.js";
import { createInMemoryOrchestrator } from "../../testing/in-memory-orchestrator.js";

const PARTNER = { kind: "partner", partnerId: 7 } as const;
const target = (apiKey: string, url = "https://vco.example.net/"): OrchestratorTarget => ({
  orchestratorUrl: url as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(apiKey),
});

describe("createIdentityMemory", () => {
  it("remembers an identification under the key's digest and the URL, never the key itself", async () => {
    const memory = createIdentityMemory((apiKey) => `length ${apiKey.reveal().length}`);
    const orchestrator = memory.remembering(
      createInMemoryOrchestrator([{ apiKey: "partner-key-1", identity: PARTNER }]),
    );
    expect(await orchestrator.identify(target("partner-key-1"))()).toEqual(E.right(PARTNER));
    expect(memory.recall(target("partner-key-1"))).toEqual(PARTNER);
    // Another key with the same digest finds it: the memory knows digests only.
    expect(memory.recall(target("partner-key-2"))).toEqual(PARTNER);
    expect(memory.recall(target("partner-key-1", "https://other.example.net/"))).toBeUndefined();
  });

  it("by default tells keys apart by a keyed digest of this process", async () => {
    const memory = createIdentityMemory();
    const orchestrator = memory.remembering(
      createInMemoryOrchestrator([{ apiKey: "partner-key-1", identity: PARTNER }]),
    );
    await orchestrator.identify(target("partner-key-1"))();
    expect(memory.recall(target("partner-key-1"))).toEqual(PARTNER);
    expect(memory.recall(target("partner-key-2"))).toBeUndefined();
  });

  it("keeps at most 10,000 keys, forgetting the oldest first", async () => {
    const keys = Array.from({ length: 10_001 }, (_, i) => `key-${i}`);
    const memory = createIdentityMemory((apiKey) => apiKey.reveal());
    const orchestrator = memory.remembering(
      createInMemoryOrchestrator(keys.map((apiKey) => ({ apiKey, identity: PARTNER }))),
    );
    for (const key of keys) await orchestrator.identify(target(key))();
    expect(memory.recall(target("key-0"))).toBeUndefined();
    expect(memory.recall(target("key-1"))).toEqual(PARTNER);
    expect(memory.recall(target("key-10000"))).toEqual(PARTNER);
  });
});
