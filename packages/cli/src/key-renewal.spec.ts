import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestWorld, TEST_KEYS } from "@sdwan-connections/core/testing";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { COMMANDS, type CommandInput, type CommandOutput } from "./commands.js";
import { readConfiguration } from "./configuration-file.js";

// The commands' key renewal (SPEC §12) through core's own service on its in-memory store: the CLI's part of the
// round trip (option → request, answer → output, export → apply), whatever a store keeps.
const world = () => createTestWorld().service;
type Service = ReturnType<typeof world>;

const run = async (service: Service, name: string, args: readonly string[], options: CommandInput["options"] = {}) => {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) throw new Error(`no command ${name}`);
  const input = {
    service,
    args,
    options,
    apiKey: TEST_KEYS.partner,
    by: { name: "ops" },
    keySources: {
      env: {},
      keyDir: undefined,
      dataDir: "/nonexistent",
      masterKeyFile: "/nonexistent/k",
      masterKeys: [],
    },
    signal: new AbortController().signal,
    emit: () => undefined,
  } as unknown as CommandInput;
  const result = await command.run(input)();
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};
const text = (output: CommandOutput): string => ("message" in output ? output.message : output.forPeople(120));
const data = (output: CommandOutput): unknown => ("data" in output ? output.data : undefined);

describe("--key-renewal and keyRenewal in the commands", () => {
  it("add and update send it; get and list -o wide show it", async () => {
    const service = world();
    await run(service, "add", ["lab", "https://vco.example.net/"], { force: true, "key-renewal": "auto" });
    await run(service, "add", ["edge", "https://vco.example.net/"], { force: true });
    expect(data(await run(service, "get", ["lab"]))).toMatchObject({ keyRenewal: "auto" });
    expect(text(await run(service, "get", ["edge"]))).toMatch(/Key renewal +off\n$/);
    await run(service, "update", ["lab"], { "key-renewal": "off", force: true });
    await run(service, "update", ["edge"], { "key-renewal": "auto", force: true });
    expect(data(await run(service, "list", [], { output: "wide" }))).toEqual([
      expect.objectContaining({ alias: "edge", keyRenewal: "auto" }),
      expect.objectContaining({ alias: "lab", keyRenewal: "off" }),
    ]);
  });

  it("export writes keyRenewal: auto where it is on, and applying that export plans nothing", async () => {
    const service = world();
    await run(service, "add", ["lab", "https://vco.example.net/"], { force: true, "key-renewal": "auto" });
    await run(service, "add", ["edge", "https://vco.example.net/"], { force: true });
    const exported = text(await run(service, "export", [], { format: "json" }));
    expect(JSON.parse(exported)).toEqual({
      connections: [
        { alias: "edge", orchestratorUrl: "https://vco.example.net/", apiKey: "env:SDWAN_APIKEY_EDGE" },
        {
          alias: "lab",
          orchestratorUrl: "https://vco.example.net/",
          apiKey: "env:SDWAN_APIKEY_LAB",
          keyRenewal: "auto",
        },
      ],
    });
    const dir = await mkdtemp(join(tmpdir(), "sdwan-cli-renewal-"));
    try {
      await writeFile(join(dir, "exported.json"), exported);
      const read = await readConfiguration(join(dir, "exported.json"), {
        env: { SDWAN_APIKEY_LAB: TEST_KEYS.partner, SDWAN_APIKEY_EDGE: TEST_KEYS.partner },
        keyDir: undefined,
        dataDir: join(dir, "data"),
        masterKeyFile: join(dir, "data", "master.key"),
        masterKeys: [],
      })();
      if (E.isLeft(read)) throw new Error(JSON.stringify(read.left));
      const plan = await service.planConfiguration(read.right.connections)();
      expect(E.isRight(plan) && plan.right.steps.map((step) => step.action)).toEqual(["unchanged", "unchanged"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
