import {
  ALIAS_MAX_LENGTH,
  ALIAS_PATTERN,
  ORCHESTRATOR_URL_MAX_LENGTH,
  ORCHESTRATOR_URL_PATTERN,
} from "@sdwan-connections/core";
import type * as t from "io-ts";

/**
 * The OpenAPI 3.1 (JSON Schema 2020-12) schema of an io-ts codec: how the document describes every answer from
 * core's wire codecs instead of by hand. A codec with a name of its own (`t.type({…}, "Grant")`) becomes a
 * component, referred to by `$ref`; objects admit no other property (the service writes exactly the codec's).
 */
export type Schema = { readonly [keyword: string]: unknown };

/** What io-ts cannot look into (refined or hand-made codecs), by the codec's name, written inline. */
const FORMATS: Readonly<Record<string, Schema>> = {
  Int: { type: "integer" },
  integer: { type: "integer" },
  UnknownRecord: { type: "object" },
  IsoTime: { type: "string", format: "date-time" },
  Rfc3339Time: { type: "string", format: "date-time" },
};
/** Core's branded strings, by name: components of their own (parameters refer to them too). */
const BRANDED: Readonly<Record<string, Schema>> = {
  Alias: {
    type: "string",
    minLength: 1,
    maxLength: ALIAS_MAX_LENGTH,
    pattern: ALIAS_PATTERN.source,
    description: "Unique ignoring case; returned as first given.",
  },
  OrchestratorUrl: {
    type: "string",
    minLength: 1,
    maxLength: ORCHESTRATOR_URL_MAX_LENGTH,
    pattern: ORCHESTRATOR_URL_PATTERN.source,
    description: "Absolute http(s) URL without user-info or fragment, returned exactly as given.",
  },
};

const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const NULL: Schema = { type: "null" };

/** Named codecs met while describing, to become components. */
type Found = Map<string, t.Mixed>;

/** The parts of io-ts's codec classes read here (each class has its `_tag`). */
type Codec = t.Mixed & {
  readonly _tag?: string;
  readonly props?: t.Props;
  readonly type?: t.Mixed;
  readonly types?: readonly t.Mixed[];
  readonly keys?: Record<string, unknown>;
  readonly value?: unknown;
  readonly codomain?: t.Mixed;
};

const object = (props: t.Props, required: boolean, found: Found): Schema => ({
  type: "object",
  ...(required ? { required: Object.keys(props) } : {}),
  additionalProperties: false,
  properties: Object.fromEntries(Object.entries(props).map(([key, codec]) => [key, schemaOf(codec, found)])),
});

/** `X | null`: a nullable X when X has a plain `type`, else either. */
const nullable = (schema: Schema): Schema => {
  if (typeof schema.type !== "string") return { anyOf: [schema, NULL] };
  const enumeration = Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {};
  return { ...schema, type: [schema.type, "null"], ...enumeration };
};

const union = (members: readonly t.Mixed[], found: Found): Schema => {
  const withoutNull = members.filter((member) => (member as Codec)._tag !== "NullType");
  const schemas = withoutNull.map((member) => schemaOf(member, found));
  const enums = schemas.map((schema) => schema.enum);
  const types = [...new Set(schemas.map((schema) => schema.type))];
  const one: Schema = enums.every(Array.isArray)
    ? { ...(types.length === 1 ? { type: types[0] } : {}), enum: enums.flat() }
    : schemas.length === 1
      ? (schemas[0] as Schema)
      : { anyOf: schemas };
  return withoutNull.length === members.length ? one : nullable(one);
};

/** An intersection of objects is one object (additionalProperties would refuse each part's fields in an allOf). */
const intersection = (members: readonly t.Mixed[], found: Found): Schema => {
  const parts = members.map((member) => bodyOf(member, found));
  if (parts.some((part) => part.type !== "object")) return { allOf: members.map((member) => schemaOf(member, found)) };
  return {
    type: "object",
    required: parts.flatMap((part) => (part.required as string[] | undefined) ?? []),
    additionalProperties: false,
    properties: Object.assign({}, ...parts.map((part) => part.properties)) as Schema,
  };
};

/** The codec's own schema, whatever its name; its named parts as $refs. */
const bodyOf = (codec: Codec, found: Found): Schema => {
  const inner = (): Codec => codec.type as Codec;
  const known = FORMATS[codec.name] ?? BRANDED[codec.name];
  if (known !== undefined) return known;
  switch (codec._tag) {
    case "StringType":
      return { type: "string" };
    case "NumberType":
      return { type: "number" };
    case "BooleanType":
      return { type: "boolean" };
    case "NullType":
      return NULL;
    case "UnknownType":
      return {};
    case "LiteralType":
      return { type: typeof codec.value, enum: [codec.value] };
    case "KeyofType":
      return { type: "string", enum: Object.keys(codec.keys ?? {}) };
    case "InterfaceType":
    case "StrictType":
      return object(codec.props ?? {}, true, found);
    case "PartialType":
      return object(codec.props ?? {}, false, found);
    case "ExactType":
    case "ReadonlyType":
    case "RefinementType":
      return bodyOf(inner(), found);
    case "ArrayType":
    case "ReadonlyArrayType":
      return { type: "array", items: schemaOf(inner(), found) };
    case "DictionaryType":
      return { type: "object", additionalProperties: schemaOf(codec.codomain as t.Mixed, found) };
    case "UnionType":
      return union(codec.types ?? [], found);
    case "IntersectionType":
      return intersection(codec.types ?? [], found);
    default:
      throw new Error(`No schema for the codec ${codec.name}: add it to schema-of.ts's FORMATS or BRANDED`);
  }
};

/** The codec's schema: a $ref when it is named (recorded in `found`), else its body. */
export const schemaOf = (codec: t.Mixed, found: Found): Schema => {
  const name = codec.name;
  if (FORMATS[name] !== undefined || !COMPONENT_NAME.test(name)) return bodyOf(codec, found);
  const met = found.get(name);
  if (
    met !== undefined &&
    met !== codec &&
    JSON.stringify(bodyOf(met, new Map())) !== JSON.stringify(bodyOf(codec, new Map()))
  )
    throw new Error(`Two different codecs are named ${name}`);
  found.set(name, met ?? codec);
  return ref(name);
};

/** A value whose codecs are replaced by their schemas. */
type Described<V> = V extends t.Mixed ? Schema : V extends object ? { [K in keyof V]: Described<V[K]> } : V;

/**
 * `value` (the document's paths) with every codec in it replaced by its schema, and the components the codecs
 * name: each with its `notes` (a description, or keywords io-ts cannot say) by `Name` or `Name.property`.
 */
export const describe = <V>(
  value: V,
  notes: Readonly<Record<string, string | Schema>> = {},
): { described: Described<V>; components: Record<string, Schema> } => {
  const found: Found = new Map();
  const walk = (part: unknown): unknown => {
    if (part === null || typeof part !== "object") return part;
    if (Array.isArray(part)) return part.map(walk);
    if ("decode" in part && "encode" in part) return schemaOf(part as t.Mixed, found);
    return Object.fromEntries(Object.entries(part).map(([key, inner]) => [key, walk(inner)]));
  };
  const described = walk(value) as Described<V>;
  const components: Record<string, Schema> = {};
  // Describing a component may meet more of them: until none is new.
  for (let size = -1; size !== found.size;) {
    size = found.size;
    for (const [name, codec] of [...found]) components[name] ??= annotate(name, bodyOf(codec, found), notes);
  }
  return { described, components };
};

const note = (text: string | Schema | undefined): Schema =>
  text === undefined ? {} : typeof text === "string" ? { description: text } : text;

const annotate = (name: string, body: Schema, notes: Readonly<Record<string, string | Schema>>): Schema => {
  const properties = body.properties as Record<string, Schema> | undefined;
  return {
    ...body,
    ...note(notes[name]),
    ...(properties === undefined
      ? {}
      : {
          properties: Object.fromEntries(
            Object.entries(properties).map(([key, schema]) => [key, { ...schema, ...note(notes[`${name}.${key}`]) }]),
          ),
        }),
  };
};
