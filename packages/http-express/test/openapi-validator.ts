import { Ajv2020 } from "ajv/dist/2020.js";
import { apiTemplateOf, openApiDocument } from "../src/openapi.js";

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: "openapi.json", ...openApiDocument });

const pointer = (...parts: string[]): string =>
  parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

/**
 * Checks one real response against the OpenAPI document: the operation must
 * document its status, with the same media type, and the body must match the
 * schema. Returns the problems found (empty when it conforms).
 */
export const openApiViolations = (
  method: string,
  apiPath: string,
  status: number,
  contentType: string | null,
  body: string,
): string[] => {
  const template = apiTemplateOf(apiPath);
  // Not an endpoint of the interface (a 404 for an unknown path): nothing to check against.
  if (template === undefined) return [];
  const operation = (
    openApiDocument.paths as unknown as Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
    >
  )[template]?.[method.toLowerCase()];
  if (operation === undefined) return [`${method} ${template} is not documented`];
  const response = operation.responses[String(status)];
  if (response === undefined) return [`${method} ${template} does not document status ${status}`];
  if (response.content === undefined) return body === "" ? [] : [`status ${status} should have no body`];
  const mediaType = (contentType ?? "").split(";")[0]?.trim() ?? "";
  if (!(mediaType in response.content))
    return [`status ${status} documents ${Object.keys(response.content).join(", ")}, got ${mediaType}`];
  let value: unknown = body;
  if (mediaType.endsWith("json")) value = JSON.parse(body);
  const ref = `openapi.json#${pointer("", "paths", template, method.toLowerCase(), "responses", String(status), "content", mediaType, "schema")}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ""}`);
};
