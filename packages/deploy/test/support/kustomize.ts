import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

/**
 * A renderer for the subset of kustomize the manifests use, so the tests see
 * what `kubectl apply -k` applies without kubectl or a cluster: `resources`
 * (files of YAML documents, or directories holding a kustomization.yaml) and
 * `patches` that are JSON 6902 operation lists with a `target` kind and name.
 * Any other field fails the render, so the manifests cannot drift past what is
 * tested here.
 */

export type Manifest = Record<string, unknown> & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string } & Record<string, unknown>;
};

/** The package's root: base/, overlays/, examples/. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export const OVERLAYS = ["embedded", "postgres"] as const;
export type Overlay = (typeof OVERLAYS)[number];

const KNOWN_FIELDS = new Set(["apiVersion", "kind", "resources", "patches"]);

type Operation = { readonly op: "add" | "replace" | "remove"; readonly path: string; readonly value?: unknown };
type Patch = { readonly path: string; readonly target: { readonly kind: string; readonly name: string } };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every document of a YAML file (empty documents skipped); a syntax error throws with the file's name. */
export const readYamlDocuments = (file: string): unknown[] =>
  parseAllDocuments(readFileSync(file, "utf8")).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
    const value: unknown = document.toJS();
    return value === null ? [] : [value];
  });

const asManifest = (value: unknown, file: string): Manifest => {
  if (!isRecord(value) || typeof value["apiVersion"] !== "string" || typeof value["kind"] !== "string") {
    throw new Error(`${file}: a document without apiVersion and kind`);
  }
  const metadata = value["metadata"];
  if (!isRecord(metadata) || typeof metadata["name"] !== "string")
    throw new Error(`${file}: a ${value["kind"]} without metadata.name`);
  return value as Manifest;
};

/** RFC 6901 tokens of a JSON pointer. */
const tokens = (pointer: string): string[] =>
  pointer
    .split("/")
    .slice(1)
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));

/** Applies one RFC 6902 add, replace or remove to `document` in place. */
const applyOperation = (document: unknown, operation: Operation, where: string): void => {
  const path = tokens(operation.path);
  const last = path.pop();
  if (last === undefined) throw new Error(`${where}: cannot ${operation.op} the whole document`);
  let parent: unknown = document;
  for (const token of path) {
    parent = Array.isArray(parent) ? parent[Number(token)] : isRecord(parent) ? parent[token] : undefined;
    if (parent === undefined) throw new Error(`${where}: ${operation.path} has no parent`);
  }
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length)
      throw new Error(`${where}: ${operation.path} is out of range`);
    if (operation.op !== "add" && index >= parent.length) throw new Error(`${where}: ${operation.path} does not exist`);
    if (operation.op === "add") parent.splice(index, 0, operation.value);
    else if (operation.op === "replace") parent[index] = operation.value;
    else parent.splice(index, 1);
  } else if (isRecord(parent)) {
    if (operation.op !== "add" && !(last in parent)) throw new Error(`${where}: ${operation.path} does not exist`);
    if (operation.op === "remove") delete parent[last];
    else parent[last] = operation.value;
  } else {
    throw new Error(`${where}: ${operation.path} is inside a scalar`);
  }
};

const readOperations = (file: string): Operation[] => {
  const [operations] = readYamlDocuments(file);
  if (!Array.isArray(operations)) throw new Error(`${file}: a patch must be a list of JSON 6902 operations`);
  for (const operation of operations) {
    if (
      !isRecord(operation) ||
      !["add", "replace", "remove"].includes(String(operation["op"])) ||
      typeof operation["path"] !== "string"
    ) {
      throw new Error(`${file}: only add, replace and remove operations with a path are supported`);
    }
  }
  return operations as Operation[];
};

/** The objects `kubectl apply -k <directory>` would apply, in kustomization order. */
export const render = (directory: string): Manifest[] => {
  const file = join(directory, "kustomization.yaml");
  const [kustomization] = readYamlDocuments(file);
  if (!isRecord(kustomization)) throw new Error(`${file}: not a mapping`);
  const unknown = Object.keys(kustomization).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) throw new Error(`${file}: ${unknown.join(", ")} not supported by the test renderer`);
  const resources = (kustomization["resources"] ?? []) as string[];
  const objects = resources.flatMap((resource) => {
    const path = resolve(directory, resource);
    return statSync(path).isDirectory()
      ? render(path)
      : readYamlDocuments(path).map((value) => asManifest(value, path));
  });
  const rendered = structuredClone(objects);
  for (const patch of (kustomization["patches"] ?? []) as Patch[]) {
    const where = join(directory, patch.path);
    const targets = rendered.filter(
      (object) => object.kind === patch.target.kind && object.metadata.name === patch.target.name,
    );
    if (targets.length !== 1)
      throw new Error(
        `${where}: its target ${patch.target.kind}/${patch.target.name} matches ${targets.length} objects`,
      );
    for (const operation of readOperations(where)) applyOperation(targets[0], operation, where);
  }
  return rendered;
};

export const renderOverlay = (overlay: Overlay): Manifest[] => render(join(PACKAGE_ROOT, "overlays", overlay));

/** The examples applied with `kubectl apply -f`, one file each. */
export const EXAMPLES = ["hpa.yaml", "servicemonitor.yaml", "ingress.yaml", "external-secret.yaml"] as const;

export const readExample = (name: (typeof EXAMPLES)[number]): Manifest[] => {
  const file = join(PACKAGE_ROOT, "examples", name);
  return readYamlDocuments(file).map((value) => asManifest(value, file));
};
