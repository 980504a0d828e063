import {
  ALIAS_MAX_LENGTH,
  ALIAS_PATTERN,
  API_KEY_MAX_LENGTH,
  apiKeyPattern,
  API_KEY_REF_MAX_LENGTH,
  ORCHESTRATOR_URL_MAX_LENGTH,
  orchestratorUrlPattern,
  subjectPattern,
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
  WebhookUrl: { type: "string" },
  EventTypePattern: { type: "string" },
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
    pattern: orchestratorUrlPattern().source,
    description: "Absolute http(s) URL without user-info or fragment, returned exactly as given.",
  },
  Subject: {
    type: "string",
    pattern: subjectPattern().source,
    description: "A principal (user:NAME, oidc:NAME, token:NAME) or a group (group:NAME).",
  },
  AliasPattern: {
    type: "string",
    minLength: 1,
    maxLength: ALIAS_MAX_LENGTH,
    pattern: "^[A-Za-z0-9._*-]+$",
    description: "An alias glob: `*` any run of characters; matched ignoring case, as aliases are.",
  },
  ApiKey: {
    type: "string",
    minLength: 1,
    maxLength: API_KEY_MAX_LENGTH,
    pattern: apiKeyPattern().source,
    writeOnly: true,
    description: "The orchestrator credential: accepted on add and update, never returned. No control characters.",
  },
  ApiKeyRef: {
    type: "string",
    maxLength: API_KEY_REF_MAX_LENGTH,
    pattern: "^(env:SDWAN_APIKEY_[A-Za-z0-9_]+|file:[^/].*)$",
    description: "Where a key is kept instead of the store (SPEC §12): `file:NAME` or `env:NAME`.",
  },
};

const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const NULL: Schema = { type: "null" };

/** A description, or keywords io-ts cannot say (`{ format: "uuid" }`), of a component (`Name`) or its property (`Name.property`). */
export type Notes = Readonly<Record<string, string | Schema>>;

/** What one description carries along: the notes (and which were used), the named codecs met (the components to make). */
interface Context {
  readonly notes: Notes;
  readonly found: Map<string, t.Mixed>;
  readonly used: Set<string>;
}

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

const object = (props: t.Props, required: boolean, context: Context): Schema => ({
  type: "object",
  ...(required ? { required: Object.keys(props) } : {}),
  additionalProperties: false,
  properties: Object.fromEntries(Object.entries(props).map(([key, codec]) => [key, schemaOf(codec, context)])),
});

/** `X | null`: a nullable X when X has a plain `type`, else either. */
const nullable = (schema: Schema): Schema => {
  if (typeof schema.type !== "string") return { anyOf: [schema, NULL] };
  const enumeration = Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {};
  return { ...schema, type: [schema.type, "null"], ...enumeration };
};

const union = (members: readonly t.Mixed[], context: Context): Schema => {
  const withoutNull = members.filter((member) => (member as Codec)._tag !== "NullType");
  const schemas = withoutNull.map((member) => schemaOf(member, context));
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
const intersection = (members: readonly t.Mixed[], context: Context): Schema => {
  const parts = members.map((member) => bodyOf(member, context));
  if (parts.some((part) => part.type !== "object"))
    return { allOf: members.map((member) => schemaOf(member, context)) };
  return {
    type: "object",
    required: parts.flatMap((part) => (part.required as string[] | undefined) ?? []),
    additionalProperties: false,
    properties: Object.assign({}, ...parts.map((part) => part.properties)) as Schema,
  };
};

/** A named codec's body with its notes. */
const annotate = (name: string, body: Schema, { notes, used }: Context): Schema => {
  const note = (key: string): Schema => {
    const text = notes[key];
    if (text !== undefined) used.add(key);
    return text === undefined ? {} : typeof text === "string" ? { description: text } : text;
  };
  const properties = body.properties as Record<string, Schema> | undefined;
  const noted = (key: string, schema: Schema): Schema => ({ ...schema, ...note(`${name}.${key}`) });
  return {
    ...body,
    ...note(name),
    ...(properties === undefined
      ? {}
      : {
          properties: Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, noted(key, schema)])),
        }),
  };
};

/** The codec's own schema, whatever its name; its named parts as $refs. */
const bodyOf = (codec: Codec, context: Context): Schema => {
  const known = FORMATS[codec.name] ?? BRANDED[codec.name];
  const body = known ?? shapeOf(codec, context);
  return COMPONENT_NAME.test(codec.name) ? annotate(codec.name, body, context) : body;
};

const shapeOf = (codec: Codec, context: Context): Schema => {
  const inner = (): Codec => codec.type as Codec;
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
      return object(codec.props ?? {}, true, context);
    case "PartialType":
      return object(codec.props ?? {}, false, context);
    case "ExactType":
    case "ReadonlyType":
    case "RefinementType":
      return bodyOf(inner(), context);
    case "ArrayType":
    case "ReadonlyArrayType":
      return { type: "array", items: schemaOf(inner(), context) };
    case "DictionaryType":
      return { type: "object", additionalProperties: schemaOf(codec.codomain as t.Mixed, context) };
    case "UnionType":
      return union(codec.types ?? [], context);
    case "IntersectionType":
      return intersection(codec.types ?? [], context);
    default:
      throw new Error(`No schema for the codec ${codec.name}: add it to schema-of.ts's FORMATS or BRANDED`);
  }
};

/** The codec's schema: a $ref when it is named (recorded as a component to make), else its body. */
const schemaOf = (codec: t.Mixed, context: Context): Schema => {
  const name = codec.name;
  if (FORMATS[name] !== undefined || !COMPONENT_NAME.test(name)) return bodyOf(codec, context);
  const met = context.found.get(name);
  const bodies = (): string[] =>
    [met, codec].map((one) => JSON.stringify(bodyOf(one as t.Mixed, { ...context, found: new Map() })));
  if (met !== undefined && met !== codec && new Set(bodies()).size > 1)
    throw new Error(`Two different codecs are named ${name}`);
  context.found.set(name, met ?? codec);
  return ref(name);
};

/** A value whose codecs are replaced by their schemas. */
type Described<V> = V extends t.Mixed ? Schema : V extends object ? { [K in keyof V]: Described<V[K]> } : V;

/**
 * `value` (the document's paths) with every codec in it replaced by its schema, and the components the codecs
 * name, each with its notes.
 */
export const describe = <V>(
  value: V,
  notes: Notes = {},
): { described: Described<V>; components: Record<string, Schema> } => {
  const context: Context = { notes, found: new Map(), used: new Set() };
  const walk = (part: unknown): unknown => {
    if (part === null || typeof part !== "object") return part;
    if (Array.isArray(part)) return part.map(walk);
    if ("decode" in part && "encode" in part) return schemaOf(part as t.Mixed, context);
    return Object.fromEntries(Object.entries(part).map(([key, inner]) => [key, walk(inner)]));
  };
  const described = walk(value) as Described<V>;
  const components: Record<string, Schema> = {};
  // Describing a component may meet more of them: until none is new.
  for (let size = -1; size !== context.found.size;) {
    size = context.found.size;
    for (const [name, codec] of [...context.found]) components[name] ??= bodyOf(codec, context);
  }
  // A note whose codec or property was renamed would be lost quietly.
  const unused = Object.keys(notes).filter((key) => !context.used.has(key));
  if (unused.length > 0) throw new Error(`Notes on no codec or property: ${unused.join(", ")}`);
  return { described, components };
};
