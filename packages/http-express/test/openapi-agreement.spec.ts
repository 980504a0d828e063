import { Ajv2020 } from "ajv/dist/2020.js";
import * as E from "fp-ts/lib/Either.js";
import fc from "fast-check";
import {
  AddConnectionRequest,
  CreateTokenRequest,
  GrantRequestCodec,
  RenewTokenRequest,
  UpdateConnectionRequest,
} from "@sdwan-connections/core";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../src/openapi.js";

const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema({ $id: "openapi.json", ...openApiDocument });
const schema = (name: string) =>
  ajv.getSchema(`openapi.json#/components/schemas/${name}`) ??
  ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` });

// Values near each rule's edges, mixed with arbitrary text: what a client could send.
const alias = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,70}$/),
  fc.string({ maxLength: 70, unit: "binary" }),
  fc.constantFrom("", "-a", "a b", "é", "a".repeat(64), "a".repeat(65)),
);
const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true }),
  fc.string({ maxLength: 40, unit: "binary" }),
  fc.constantFrom(
    "http://a.example",
    "HTTPS://H.EXAMPLE:8443/vco/",
    "http://[::1]:9000",
    "https://h/x#frag",
    "ftp://h/",
    "http://u:p@h/",
    "http://h/a b",
    "http://",
    "http:127.0.0.1:8080",
    "http:/host/",
    "http:\\\\host\\",
    " http://h/",
    "http://h/\u0007",
    `http://h/${"a".repeat(2040)}`,
  ),
);
const apiKey = fc.oneof(
  fc.string({ maxLength: 30, unit: "binary" }),
  fc.constantFrom("", "key\u0000", "key\u009f", "k".repeat(8192), "k".repeat(8193)),
);
const body = fc.record(
  { alias, orchestratorUrl: url, apiKey, extra: fc.string({ maxLength: 3 }) },
  { requiredKeys: [] },
);

// Grants and service tokens: names, subjects and patterns near their rules, counts near their bounds.
const word = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._*-]{0,70}$/),
  fc.string({ maxLength: 10, unit: "binary" }),
  fc.constantFrom("", "a b", "prod-*", "a".repeat(64), "a".repeat(65)),
);
const subject = fc.oneof(
  word,
  fc.tuple(fc.constantFrom("user", "oidc", "token", "group", "role"), word).map(([kind, name]) => `${kind}:${name}`),
);
const count = fc.oneof(
  fc.integer({ min: -2, max: 800 }),
  fc.double({ noNaN: true }),
  fc.constantFrom("3", null, 1.5, 0, 1, 365, 366, 720, 721),
);
const grant = fc.record(
  { subject, pattern: word, verb: fc.constantFrom("read", "use", "manage", "own"), extra: word },
  { requiredKeys: [] },
);
const token = fc.record(
  {
    name: word,
    expiresInDays: count,
    role: fc.constantFrom("admin", "viewer", "root", null),
    grants: fc.array(
      fc.record({ pattern: word, verb: fc.constantFrom("read", "manage", "all") }, { requiredKeys: [] }),
      {
        maxLength: 2,
      },
    ),
    extra: word,
  },
  { requiredKeys: [] },
);

describe("the OpenAPI document and core's codecs agree on request bodies", () => {
  it.each([
    ["AddConnection", AddConnectionRequest, body],
    ["UpdateConnection", UpdateConnectionRequest, body],
    ["GrantRequest", GrantRequestCodec, grant],
    ["CreateServiceTokenRequest", CreateTokenRequest, token],
    [
      "RenewServiceTokenRequest",
      RenewTokenRequest,
      fc.record({ overlapHours: count, extra: word }, { requiredKeys: [] }),
    ],
  ] as const)(
    "%s",
    (name, codec: { decode: (input: unknown) => E.Either<unknown, unknown> }, bodies: fc.Arbitrary<unknown>) => {
      const validate = schema(name);
      fc.assert(
        fc.property(bodies, (candidate) => {
          expect(validate(candidate), JSON.stringify(candidate).slice(0, 200)).toBe(E.isRight(codec.decode(candidate)));
        }),
        { numRuns: 1_000 },
      );
    },
  );
});

describe("the OpenAPI document is whole", () => {
  it("each $ref names a component", () => {
    const refs = [...JSON.stringify(openApiDocument).matchAll(/"\$ref":"([^"]+)"/g)].map(([, ref]) => ref ?? "");
    expect(refs.length).toBeGreaterThan(60);
    const components = Object.keys(openApiDocument.components.schemas).map((name) => `#/components/schemas/${name}`);
    expect(refs.filter((ref) => !components.includes(ref))).toEqual([]);
  });
});
