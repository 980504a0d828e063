import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  NULLABLE_ENTERPRISE_FIELDS,
  PORTAL_METHODS,
  startOrchestratorSimulator,
  type Fault,
  type OrchestratorSimulator,
  type PortalMethod,
} from "../src/index.js";

// The vendor's Swagger 2.0 file (fixtures/vendor/README.md says where it comes from).
const SWAGGER = JSON.parse(
  readFileSync(new URL("../fixtures/vendor/orchestrator-portal-api-v1.swagger.json", import.meta.url), "utf8"),
) as {
  readonly definitions: Record<string, unknown>;
  readonly paths: Record<
    string,
    { readonly post: { readonly responses: Record<string, { readonly $ref?: string; readonly schema?: unknown }> } }
  >;
  readonly responses: Record<string, { readonly schema?: unknown }>;
};

type Properties = Record<string, { type?: string }>;
const enterpriseProperties = (definitions: Record<string, unknown>) =>
  (definitions["enterprise"] as { properties: Properties }).properties;

/**
 * The Swagger's definitions, but for the nulls the simulator documents (README, "Deliberate deviations"):
 * `null` is allowed in exactly NULLABLE_ENTERPRISE_FIELDS of an `enterprise`, and nowhere else.
 */
const DEFINITIONS = ((): Record<string, unknown> => {
  const definitions = structuredClone(SWAGGER.definitions);
  const properties = enterpriseProperties(definitions);
  for (const field of NULLABLE_ENTERPRISE_FIELDS) {
    const property = properties[field];
    if (property?.type === undefined) throw new Error(`the Swagger's enterprise has no typed ${field}`);
    property.type = [property.type, "null"] as unknown as string;
  }
  return definitions;
})();

// Swagger 2 schemas are JSON Schema draft 4 with extensions (x-*, format "double"): strict mode off.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: "swagger.json", definitions: DEFINITIONS });

/** The documented answers of one method: status → validator of the body. */
const documented = (method: PortalMethod): ReadonlyMap<number, ValidateFunction> => {
  const responses = SWAGGER.paths[`/${method}`]?.post.responses ?? {};
  return new Map(
    Object.entries(responses).map(([status, response]) => {
      const schema =
        response.$ref === undefined
          ? response.schema
          : SWAGGER.responses[response.$ref.split("/").at(-1) as string]?.schema;
      // Rewrite local refs to the schema registered above.
      const rooted = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/definitions/', '"swagger.json#/definitions/'),
      ) as object;
      return [Number(status), ajv.compile(rooted)];
    }),
  );
};
const DOCUMENTED = new Map(PORTAL_METHODS.map((method) => [method, documented(method)]));

const PARTNER_KEY = "sample-partner-key-1";
const CUSTOMER_KEY = "sample-customer-key-1-1";

/** What is wrong with one answer, by the Swagger; empty when it conforms. */
const violations = async (
  sim: OrchestratorSimulator,
  method: PortalMethod,
  key: string | undefined,
  body = "{}",
): Promise<string[]> => {
  let response: Response;
  try {
    response = await fetch(`${sim.url}portal/rest/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key === undefined ? {} : { authorization: `Token ${key}` }) },
      body,
      redirect: "manual",
    });
  } catch {
    return ["no HTTP answer"];
  }
  const text = await response.text();
  const validate = DOCUMENTED.get(method)?.get(response.status);
  if (validate === undefined) return [`HTTP ${response.status} is not documented for ${method}`];
  if (!(response.headers.get("content-type") ?? "").startsWith("application/json"))
    return [`content-type ${response.headers.get("content-type")}`];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return ["the body is not JSON"];
  }
  const check = (value: unknown) =>
    validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  // A deliberate deviation (README): the Swagger's token list result is one `api_token`; orchestrators answer an array of them.
  if (response.status === 200 && TOKEN_LISTS.has(method))
    return Array.isArray(json) ? json.flatMap(check) : ["a token list that is not an array"];
  return check(json);
};

const TOKEN_LISTS: ReadonlySet<PortalMethod> = new Set(["enterpriseProxy/getApiTokens", "enterprise/getApiTokens"]);

describe("the simulator's answers validate against the vendor Swagger", () => {
  let sim: OrchestratorSimulator;
  beforeAll(async () => {
    sim = await startOrchestratorSimulator();
  });
  afterAll(() => sim.stop());

  it("documents 200, 400 and 500 for every method (what the checks below rely on)", () => {
    for (const method of PORTAL_METHODS)
      expect([...(DOCUMENTED.get(method)?.keys() ?? [])].sort()).toEqual([200, 400, 500]);
  });

  it("allows null in no field but the documented ones: each of them, and no other, is typed in the vendor's own Swagger", () => {
    const vendor = enterpriseProperties(SWAGGER.definitions);
    const allowed = Object.entries(enterpriseProperties(DEFINITIONS))
      .filter(([, property]) => Array.isArray(property.type))
      .map(([field]) => field);
    expect(allowed.sort()).toEqual([...NULLABLE_ENTERPRISE_FIELDS].sort());
    for (const field of NULLABLE_ENTERPRISE_FIELDS) expect(typeof vendor[field]?.type, field).toBe("string");
  });

  it("sends nulls in the sample's listings (as real orchestrators do), which the vendor's Swagger alone would refuse", async () => {
    const strict = new Ajv({ strict: false });
    addFormats.default(strict);
    const enterprise = strict.compile({
      ...(SWAGGER.definitions["enterprise"] as object),
      definitions: SWAGGER.definitions,
    });
    const listed = sim.data.partners.flatMap((partner) => partner.enterprises);
    const withNull = listed.filter((e) => Object.values(e).includes(null));
    expect(withNull.length).toBeGreaterThan(0);
    expect(withNull.every((e) => !enterprise(e))).toBe(true);
  });

  it("for every key of the sample, every method", async () => {
    const keys = [
      ...sim.data.partners.flatMap((partner) => partner.keys),
      ...sim.data.customerKeys.map((customer) => customer.key),
    ];
    for (const key of keys)
      for (const method of PORTAL_METHODS)
        expect(await violations(sim, method, key), `${method} with ${key}`).toEqual([]);
  });

  it("for an unknown key, no token, a body that is not an object, and another partner's id", async () => {
    for (const method of PORTAL_METHODS) {
      expect(await violations(sim, method, "unknown-key"), method).toEqual([]);
      expect(await violations(sim, method, undefined), method).toEqual([]);
      expect(await violations(sim, method, PARTNER_KEY, "not json"), method).toEqual([]);
    }
    expect(
      await violations(sim, "enterpriseProxy/getEnterpriseProxyEnterprises", PARTNER_KEY, '{"enterpriseProxyId":11}'),
    ).toEqual([]);
  });

  // The faults that imitate a documented answer.
  it.each<Fault>([
    { kind: "serverError" },
    { kind: "errorBody", status: 400 },
    { kind: "errorBody", status: 500 },
    { kind: "delay", ms: 10 },
  ])("under the fault %j", async (fault) => {
    for (const key of [PARTNER_KEY, CUSTOMER_KEY]) {
      sim.setFault("*", fault);
      for (const method of PORTAL_METHODS)
        expect(await violations(sim, method, key), `${method} with ${key}`).toEqual([]);
    }
    sim.setFault("*", undefined);
  });

  // The deliberate deviations (README, "Deliberate deviations"): each really is outside the Swagger.
  it.each<Fault>([
    { kind: "serverError", status: 503 },
    { kind: "errorBody" },
    { kind: "errorBody", status: 403 },
    { kind: "bareStatus", status: 403 },
    { kind: "missingId" },
    { kind: "html", status: 502 },
    { kind: "redirectToLogin" },
    { kind: "rateLimit", retryAfter: "1" },
    { kind: "ratePenalty" },
    { kind: "malformedJson" },
    { kind: "reset" },
  ])("except under the deliberate fault %j", async (fault) => {
    await using faulty = await startOrchestratorSimulator();
    faulty.setFault("*", fault);
    const found = await Promise.all(PORTAL_METHODS.map((method) => violations(faulty, method, PARTNER_KEY)));
    // missingId's `[{}]` listing is within the Swagger (it requires no field of a listed enterprise): some, not all.
    expect(found.some((list) => list.length > 0)).toBe(true);
    // A 200 `error` body is within the Swagger's downloaded_api_token (it requires no field): refresh's and download's.
    const withinSwagger = (method: PortalMethod) =>
      fault.kind === "errorBody" && fault.status === undefined && TOKEN_ANSWERS.has(method);
    if (fault.kind !== "missingId")
      for (const [index, method] of PORTAL_METHODS.entries())
        if (!withinSwagger(method)) expect(found[index]?.length, method).toBeGreaterThan(0);
  });

  it("for the token methods' answers: refresh, create, download, revoke, and their refusals", async () => {
    await using tokens = await startOrchestratorSimulator();
    const userId = tokens.tokenOf(PARTNER_KEY)?.createdForEnterpriseUserId;
    const create = JSON.stringify({ enterpriseUserId: userId, name: "renewed", lifetimeMs: 86_400_000 });
    expect(await violations(tokens, "enterpriseProxy/createApiToken", PARTNER_KEY, create)).toEqual([]);
    const made = tokens.tokens().at(-1)?.id;
    for (let twice = 0; twice < 2; twice += 1) {
      const id = JSON.stringify({ id: made });
      expect(await violations(tokens, "enterpriseProxy/downloadApiToken", PARTNER_KEY, id)).toEqual([]);
      expect(await violations(tokens, "enterpriseProxy/revokeApiToken", PARTNER_KEY, id)).toEqual([]);
    }
    const refresh = JSON.stringify({ apiToken: CUSTOMER_KEY });
    expect(await violations(tokens, "enterprise/refreshApiToken", CUSTOMER_KEY, refresh)).toEqual([]);
    expect(await violations(tokens, "enterprise/refreshApiToken", PARTNER_KEY, refresh)).toEqual([]);
    expect(tokens.calls.total).toBe(7);
  });
});

const TOKEN_ANSWERS: ReadonlySet<PortalMethod> = new Set([
  "enterprise/refreshApiToken",
  "enterpriseProxy/downloadApiToken",
]);
