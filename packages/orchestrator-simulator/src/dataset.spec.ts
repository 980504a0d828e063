import { readFileSync } from "node:fs";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { parseCliOptions } from "./cli.js";
import {
  BASTION_STATES,
  decodeDataset,
  DEFAULT_NULL_SHARE,
  generateDataset,
  NULLABLE_ENTERPRISE_FIELDS,
} from "./dataset.js";

const sample: unknown = JSON.parse(readFileSync(new URL("../fixtures/sample.json", import.meta.url), "utf8"));

describe("the shipped sample", () => {
  const decoded = decodeDataset(sample);
  if (E.isLeft(decoded)) throw new Error(decoded.left);
  const data = decoded.right;
  const enterprises = data.partners.flatMap((partner) => partner.enterprises);

  it("has several partners and a few hundred enterprises", () => {
    expect(data.partners.length).toBeGreaterThanOrEqual(3);
    expect(enterprises.length).toBeGreaterThanOrEqual(200);
  });

  it("holds every bastion state, tinyint flags, missing fields, nulls only where documented, and coordinates with more than 6 decimals", () => {
    expect(new Set(enterprises.map((e) => e["bastionState"]))).toEqual(new Set(BASTION_STATES));
    expect(new Set(enterprises.map((e) => e["alertsEnabled"]))).toEqual(new Set([0, 1, undefined]));
    expect(enterprises.some((e) => !("description" in e))).toBe(true);
    expect(enterprises.some((e) => !("accountNumber" in e))).toBe(true);
    const nulled = new Set(enterprises.flatMap((e) => Object.keys(e).filter((field) => e[field] === null)));
    expect(nulled).toEqual(new Set(NULLABLE_ENTERPRISE_FIELDS));
    expect(enterprises.some((e) => typeof e["lat"] === "number" && !Number.isInteger((e["lat"] as number) * 1e6))).toBe(
      true,
    );
  });

  it("uses obviously fake keys", () => {
    const keys = [...data.partners.flatMap((p) => p.keys), ...data.customerKeys.map((c) => c.key)];
    for (const key of keys) expect(key).toMatch(/^sample-(partner|customer)-key-/);
  });

  it("is what the generator makes from its seed (so scripts/make-sample.ts reproduces it)", () => {
    const again = generateDataset({
      partners: 4,
      enterprisesPerPartner: [180, 95, 40, 6],
      seed: 20_240_611,
      keyPrefix: "sample",
    });
    expect(JSON.parse(JSON.stringify(again))).toEqual(sample);
  });
});

describe("generateDataset's nulls", () => {
  const options = { partners: 2, enterprisesPerPartner: 2000, seed: 7 };
  const enterprisesOf = (dataset: ReturnType<typeof generateDataset>) =>
    dataset.partners.flatMap((partner) => partner.enterprises);
  const hasNull = (e: Readonly<Record<string, unknown>>) => Object.values(e).includes(null);

  it("come in about DEFAULT_NULL_SHARE of the enterprises by default, only in the documented fields", () => {
    const enterprises = enterprisesOf(generateDataset(options));
    const share = enterprises.filter(hasNull).length / enterprises.length;
    expect(share).toBeGreaterThan(DEFAULT_NULL_SHARE - 0.03);
    expect(share).toBeLessThan(DEFAULT_NULL_SHARE + 0.03);
    for (const e of enterprises)
      for (const field of Object.keys(e)) if (e[field] === null) expect(NULLABLE_ENTERPRISE_FIELDS).toContain(field);
  });

  it("are switched off by nullShare 0 (the old form), which changes nothing else", () => {
    const small = { ...options, enterprisesPerPartner: 300 };
    const withNulls = enterprisesOf(generateDataset(small));
    const without = enterprisesOf(generateDataset({ ...small, nullShare: 0 }));
    expect(without.some(hasNull)).toBe(false);
    const strip = (e: Readonly<Record<string, unknown>>) =>
      Object.fromEntries(
        Object.entries(e).filter(([field]) => !(NULLABLE_ENTERPRISE_FIELDS as readonly string[]).includes(field)),
      );
    expect(withNulls.map(strip)).toEqual(without.map(strip));
  });
});

describe("decodeDataset", () => {
  it("names the bad path", () => {
    const bad = decodeDataset({
      partners: [{ enterpriseProxyId: "x", name: "p", keys: [], enterprises: [] }],
      customerKeys: [],
    });
    expect(E.isLeft(bad) && bad.left).toContain("partners.0.enterpriseProxyId");
  });
});

describe("parseCliOptions", () => {
  it("defaults to 127.0.0.1:8981 without prefix", () => {
    expect(parseCliOptions([], {})).toEqual(E.right({ host: "127.0.0.1", port: 8981, prefix: "" }));
  });
  it("takes flags over environment", () => {
    expect(
      parseCliOptions(["--port", "9000", "--prefix=/vco", "--generate", "2:10"], {
        SIMULATOR_PORT: "1",
        SIMULATOR_DATA: "d.json",
      }),
    ).toEqual(
      E.right({
        host: "127.0.0.1",
        port: 9000,
        prefix: "/vco",
        dataFile: "d.json",
        generate: { partners: 2, enterprisesPerPartner: 10 },
      }),
    );
  });
  it("takes a TLS key and certificate together, from flags or environment", () => {
    expect(parseCliOptions(["--tls-key", "k.pem"], { SIMULATOR_TLS_CERT: "c.pem" })).toMatchObject(
      E.right({ tls: { keyFile: "k.pem", certFile: "c.pem" } }),
    );
    expect(parseCliOptions(["--tls-key", "k.pem"], {})).toEqual(E.left(expect.stringMatching(/go together/)));
  });
  it("takes a share of enterprises with nulls for generated data, 0 for none", () => {
    expect(parseCliOptions(["--generate", "1:10", "--null-share", "0"], {})).toEqual(
      E.right({
        host: "127.0.0.1",
        port: 8981,
        prefix: "",
        generate: { partners: 1, enterprisesPerPartner: 10, nullShare: 0 },
      }),
    );
    expect(parseCliOptions(["--generate", "1:10"], { SIMULATOR_NULL_SHARE: "0.5" })).toMatchObject(
      E.right({ generate: { nullShare: 0.5 } }),
    );
    expect(parseCliOptions(["--generate", "1:10", "--null-share", "2"], {})).toEqual(
      E.left(expect.stringMatching(/--null-share/)),
    );
    expect(parseCliOptions(["--null-share", "0.5"], {})).toEqual(E.left(expect.stringMatching(/with --generate/)));
  });

  it("refuses bad values with one clear line", () => {
    expect(parseCliOptions(["--port", "x"], {})).toEqual(E.left(expect.stringMatching(/--port/)));
    expect(parseCliOptions(["--bogus"], {})).toEqual(E.left(expect.stringMatching(/unknown argument/)));
  });

  it("reads whether a refresh revokes its predecessor, true or false only", () => {
    expect(parseCliOptions(["--refresh-revokes-predecessor", "true"], {})).toMatchObject(
      E.right({ refreshRevokesPredecessor: true }),
    );
    expect(parseCliOptions([], { SIMULATOR_REFRESH_REVOKES_PREDECESSOR: "false" })).toMatchObject(
      E.right({ refreshRevokesPredecessor: false }),
    );
    expect(parseCliOptions(["--refresh-revokes-predecessor", "yes"], {})).toEqual(
      E.left(expect.stringMatching(/expected true or false/)),
    );
  });
});
