import {
  AliasCodec,
  Customer,
  IsoTimeCodec,
  RenewTokenRequest,
  UpdateConnectionRequest,
} from "@sdwan-connections/core";
import * as t from "io-ts";
import { describe as suite, expect, it } from "vitest";
import { describe } from "./schema-of.js";

const Verb = t.keyof({ read: null, use: null }, "Verb");
const Token = t.type({ id: t.string, role: t.union([t.keyof({ admin: null, viewer: null }), t.null]) }, "Token");

suite("the schema of a codec", () => {
  it("an object's required and optional fields, and nothing else", () => {
    const { described } = describe(t.intersection([t.type({ a: t.string }), t.partial({ b: t.number })]));
    expect(described).toEqual({
      type: "object",
      required: ["a"],
      additionalProperties: false,
      properties: { a: { type: "string" }, b: { type: "number" } },
    });
  });

  it("a named codec is a component, an intersection with it one object", () => {
    const Issued = t.intersection([Token, t.type({ token: t.string })], "Issued");
    const { described, components } = describe({ list: t.array(Token), one: Issued });
    expect(described).toEqual({
      list: { type: "array", items: { $ref: "#/components/schemas/Token" } },
      one: { $ref: "#/components/schemas/Issued" },
    });
    expect(components.Token).toEqual({
      type: "object",
      required: ["id", "role"],
      additionalProperties: false,
      properties: { id: { type: "string" }, role: { type: ["string", "null"], enum: ["admin", "viewer", null] } },
    });
    expect(components.Issued).toMatchObject({ required: ["id", "role", "token"] });
  });

  it("enums, literals, unions, arrays, records and the branded codecs of core", () => {
    const { described, components } = describe({
      verbs: t.array(Verb),
      kind: t.union([t.literal("a"), t.literal("b")]),
      either: t.union([t.type({ a: t.string }), t.null, t.boolean]),
      map: t.record(t.string, t.number),
      any: t.UnknownRecord,
      at: t.union([IsoTimeCodec, t.null]),
      alias: AliasCodec,
    });
    expect(described).toEqual({
      verbs: { type: "array", items: { $ref: "#/components/schemas/Verb" } },
      kind: { type: "string", enum: ["a", "b"] },
      either: {
        anyOf: [
          {
            anyOf: [
              { type: "object", required: ["a"], additionalProperties: false, properties: { a: { type: "string" } } },
              { type: "boolean" },
            ],
          },
          { type: "null" },
        ],
      },
      map: { type: "object", additionalProperties: { type: "number" } },
      any: { type: "object" },
      at: { type: ["string", "null"], format: "date-time" },
      alias: { $ref: "#/components/schemas/Alias" },
    });
    expect(components.Verb).toEqual({ type: "string", enum: ["read", "use"] });
    expect(components.Alias).toMatchObject({ type: "string", maxLength: 64, pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$" });
  });

  it("core's Customer: each field's type as its codec accepts", () => {
    const { components } = describe(Customer);
    expect(components.Customer).toMatchObject({
      required: Object.keys(Customer.type.props),
      properties: {
        enterpriseId: { type: "string" },
        id: { type: "integer" },
        networkId: { type: ["integer", "null"] },
        alertsEnabled: { type: ["boolean", "null"] },
        latitude: { type: ["number", "null"] },
      },
    });
  });

  it("a request body through its checks (refusing unknown fields, a change at least): the codec they refine", () => {
    const { components } = describe([UpdateConnectionRequest, RenewTokenRequest]);
    expect(components.UpdateConnection).not.toHaveProperty("required");
    expect(components.UpdateConnection).toMatchObject({
      type: "object",
      additionalProperties: false,
      properties: { alias: { $ref: "#/components/schemas/Alias" }, apiKeyExpiresAt: { format: "date-time" } },
    });
    expect(components.RenewServiceTokenRequest).toMatchObject({ properties: { overlapHours: { type: "integer" } } });
  });

  it("notes describe a component and its properties, in every object made of it", () => {
    const Issued = t.intersection([Token, t.type({ token: t.string })], "Issued");
    const notes = { Token: "A token.", "Token.id": { format: "uuid", description: "Its id." } };
    const { components } = describe(Issued, { ...notes, "Issued.token": "Once." });
    const id = { type: "string", format: "uuid", description: "Its id." };
    expect(components.Issued).toMatchObject({ properties: { id, token: { type: "string", description: "Once." } } });
    expect(describe(Token, notes).components.Token).toMatchObject({ description: "A token.", properties: { id } });
  });

  it("refuses a codec it cannot look into, two codecs of one name, and a note on nothing", () => {
    const opaque = new t.Type<string>("Opaque", t.string.is, t.string.validate, t.identity);
    expect(() => describe(t.type({ x: opaque }))).toThrow(/Opaque/);
    expect(() => describe([Token, t.type({ other: t.string }, "Token")])).toThrow(/named Token/);
    expect(() => describe(Token, { "Token.name": "Renamed." })).toThrow(/Token.name/);
  });
});
