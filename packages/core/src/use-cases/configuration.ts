import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { AliasCodec, aliasKey, OrchestratorUrlCodec, type Alias } from "../domain/codecs.js";
import { decodeInput, strictObject } from "../domain/decode.js";
import { invalidInput, notFound, type DomainError, type FieldError } from "../domain/errors.js";
import { sameTime, type ChangeableField, type StoredConnection } from "../domain/connection.js";
import { AddConnectionRequest, CHANGEABLE_FIELDS, CONNECTION_FIELDS } from "../domain/requests.js";
import { describeGrant, GrantRequestCodec, sameGrant, type Grant, type GrantRequest } from "../domain/grants.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { KeyFingerprints } from "../ports/key-fingerprints.js";

/** A connection a configuration file wants, its key resolved: as an add's body. */
export type DesiredConnection = t.TypeOf<typeof AddConnectionRequest>;

// An entry without `apiKey`: its reference gave no key (an unset variable). It can only be found unchanged, its key not checked.
const keylessProps = { alias: AliasCodec, orchestratorUrl: OrchestratorUrlCodec };
const KeylessEntry = strictObject("KeylessEntry", keylessProps, t.type(keylessProps));
type Keyless = t.TypeOf<typeof KeylessEntry>;

/** A connection a configuration file wants, decoded, where its key came from when the file said (never the key), and its place. */
interface Wanted {
  readonly connection: DesiredConnection | Keyless;
  readonly keySource: string | undefined;
  readonly index: number;
}

const hasKey = (connection: DesiredConnection | Keyless): connection is DesiredConnection =>
  "apiKey" in connection || "apiKeyRef" in connection;

// Each entry decoded on its own, so that an error names its place: `connections.2.apiKey`. Its `keySource`
// (e.g. `env:SDWAN_APIKEY_LAB`, `file:lab.key`) is not the request's: the steps name it.
const decodeDesired = (raw: unknown): E.Either<DomainError, readonly Wanted[]> => {
  if (!Array.isArray(raw)) return E.left(invalidInput([{ field: "connections", message: "must be a list" }]));
  const errors: FieldError[] = [];
  const desired: Wanted[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of raw.entries()) {
    const record =
      typeof entry === "object" && entry !== null && !Array.isArray(entry)
        ? (entry as Record<string, unknown>)
        : undefined;
    const { keySource, ...request } = record ?? {};
    const decoded =
      record === undefined || "apiKey" in request || "apiKeyRef" in request
        ? decodeInput(AddConnectionRequest, "entry")(record === undefined ? entry : request)
        : decodeInput(KeylessEntry, "entry")(request);
    if (keySource !== undefined && typeof keySource !== "string")
      errors.push({ field: `connections.${index}.keySource`, message: "must be a string" });
    else if (E.isRight(decoded) && seen.has(aliasKey(decoded.right.alias)))
      errors.push({
        field: `connections.${index}.alias`,
        message: "repeats an earlier alias (aliases match in any case)",
      });
    else if (E.isRight(decoded)) {
      seen.add(aliasKey(decoded.right.alias));
      desired.push({ connection: decoded.right, keySource, index });
    }
    if (E.isLeft(decoded) && decoded.left._tag === "InvalidInput")
      errors.push(...decoded.left.errors.map((error) => ({ ...error, field: `connections.${index}.${error.field}` })));
  }
  return errors.length === 0 ? E.right(desired) : E.left(invalidInput(errors));
};

/** Where a step's key comes from, as the file said (`env:NAME`, `file:NAME`): never the key. */
interface FromSource {
  readonly keySource?: string;
}

/**
 * One step of a plan; `fields` names what an update changes; `keySource`, where the file's key comes from;
 * `keyChecked: false`, an unchanged step whose entry gave no key (its URL is the stored one).
 */
export type PlanStep =
  | ({ readonly action: "create"; readonly alias: Alias; readonly fields: readonly ChangeableField[] } & FromSource)
  | ({ readonly action: "update"; readonly alias: Alias; readonly fields: readonly ChangeableField[] } & FromSource)
  | { readonly action: "delete"; readonly alias: Alias; readonly fields: readonly [] }
  | ({
      readonly action: "unchanged";
      readonly alias: Alias;
      readonly fields: readonly [];
      readonly keyChecked?: false;
    } & FromSource);

/**
 * One grant step of a plan (SPEC §11: configuration as code carries grants): the grant, and the stored one's
 * `id` for a step that finds it stored (`delete`, `unchanged`).
 */
export interface GrantStep {
  readonly action: "create" | "delete" | "unchanged";
  readonly grant: GrantRequest;
  readonly id?: string;
}

/** How a step is named in a plan's lines: the alias, or `grant SUBJECT VERB PATTERN`. */
export const stepName = (step: PlanStep | GrantStep): string =>
  "grant" in step ? `grant ${describeGrant(step.grant)}` : step.alias;

export interface Plan {
  readonly steps: readonly PlanStep[];
  /** The grant steps, when the file has a `grants:` list (without one, the stored grants are left alone). */
  readonly grants: readonly GrantStep[];
  /** The desired connections, decoded, by alias key: what create and update steps apply. */
  readonly desired: ReadonlyMap<string, DesiredConnection>;
}

/** What planning reads of the store. */
interface PlanDeps {
  readonly repository: Pick<ConnectionRepository, "get" | "list">;
  readonly fingerprints: KeyFingerprints;
  readonly grants: { list(): TE.TaskEither<DomainError, readonly Grant[]> };
}

/**
 * The grant steps of a file's `grants:` list against the stored grants: create what no stored grant says
 * (same subject and verb, the pattern in any case), with `prune` delete the stored ones the list does not say.
 * Each entry decoded on its own (`grants.1.verb`); a repeat is refused, as a repeated alias is.
 */
const planGrants = (
  raw: unknown,
  stored: readonly Grant[],
  prune: boolean,
): E.Either<DomainError, readonly GrantStep[]> => {
  if (!Array.isArray(raw)) return E.left(invalidInput([{ field: "grants", message: "must be a list" }]));
  const errors: FieldError[] = [];
  const wanted: GrantRequest[] = [];
  for (const [index, entry] of raw.entries()) {
    const decoded = decodeInput(GrantRequestCodec, "entry")(entry);
    if (E.isLeft(decoded)) {
      if (decoded.left._tag === "InvalidInput")
        errors.push(...decoded.left.errors.map((error) => ({ ...error, field: `grants.${index}.${error.field}` })));
    } else if (wanted.some((earlier) => sameGrant(earlier, decoded.right)))
      errors.push({ field: `grants.${index}`, message: "repeats an earlier grant (patterns match in any case)" });
    else wanted.push(decoded.right);
  }
  if (errors.length > 0) return E.left(invalidInput(errors));
  return E.right([
    ...wanted.map((grant): GrantStep => {
      const found = stored.find((one) => sameGrant(one, grant));
      return found === undefined ? { action: "create", grant } : { action: "unchanged", grant, id: found.id };
    }),
    ...(prune
      ? stored
          .filter((one) => !wanted.some((grant) => sameGrant(one, grant)))
          .map(({ id, ...grant }): GrantStep => ({ action: "delete", grant, id }))
      : []),
  ]);
};

// Which key field differs: the reference (SPEC §12: compared as written, never read here), or the key itself.
const keyFieldsChanged = (
  deps: PlanDeps,
  current: StoredConnection,
  desired: DesiredConnection,
): readonly ("apiKey" | "apiKeyRef")[] => {
  if (desired.apiKeyRef !== undefined) return desired.apiKeyRef === current.apiKeyRef ? [] : ["apiKeyRef"];
  return current.apiKeyRef === undefined &&
    desired.apiKey !== undefined &&
    deps.fingerprints.fingerprint(current.alias, current.apiKey) ===
      deps.fingerprints.fingerprint(current.alias, desired.apiKey)
    ? []
    : ["apiKey"];
};

// What one desired connection asks of the store: create it, update the fields that differ, or nothing. Only what
// the store lists (`listed`, alias keys) is looked up: a file of 100,000 new connections asks nothing per entry.
const stepFor =
  (deps: PlanDeps, listed: ReadonlySet<string>) =>
  ({ connection, keySource, index }: Wanted): TE.TaskEither<DomainError, PlanStep> => {
    const source = keySource === undefined ? {} : { keySource };
    const stored = listed.has(aliasKey(connection.alias))
      ? deps.repository.get(connection.alias)
      : TE.left<DomainError, StoredConnection>(notFound(connection.alias));
    if (!hasKey(connection)) {
      const needsKey = invalidInput([
        {
          field: `connections.${index}.apiKey`,
          message: `${keySource ?? "its reference"} gives no key, and one is needed to create this connection or change its URL`,
        },
      ]);
      return pipe(
        stored,
        TE.orElse((error) => TE.left(error._tag === "NotFound" ? needsKey : error)),
        TE.flatMap((current) =>
          current.orchestratorUrl === connection.orchestratorUrl
            ? TE.right<DomainError, PlanStep>({
                action: "unchanged",
                alias: current.alias,
                fields: [],
                ...source,
                keyChecked: false,
              })
            : TE.left(needsKey),
        ),
      );
    }
    return pipe(
      stored,
      TE.map((current): PlanStep => {
        const fields = [
          ...(current.orchestratorUrl === connection.orchestratorUrl ? [] : (["orchestratorUrl"] as const)),
          ...keyFieldsChanged(deps, current, connection),
          ...(connection.apiKeyExpiresAt === undefined || sameTime(connection.apiKeyExpiresAt, current.apiKeyExpiresAt)
            ? []
            : (["apiKeyExpiresAt"] as const)),
          ...(connection.keyRenewal === undefined || connection.keyRenewal === (current.keyRenewal ?? "off")
            ? []
            : (["keyRenewal"] as const)),
        ];
        return fields.length === 0
          ? { action: "unchanged", alias: current.alias, fields: [], ...source }
          : { action: "update", alias: current.alias, fields, ...source };
      }),
      TE.orElse((error) =>
        error._tag === "NotFound"
          ? TE.right<DomainError, PlanStep>({
              action: "create",
              alias: connection.alias,
              fields: CHANGEABLE_FIELDS.filter((field) => connection[field] !== undefined),
              ...source,
            })
          : TE.left(error),
      ),
    );
  };

export interface PlanOptions {
  /** Also delete what the file does not name (connections; grants when it has a `grants:` list). */
  readonly prune?: boolean;
  /** The file's `grants:` list, undecoded; undefined leaves the stored grants alone. */
  readonly grants?: unknown;
}

/**
 * What applying `rawDesired` would do to the store: create what is missing, update what differs (the URL
 * compared as written, the key by its fingerprint, so no stored key is read out), and with `prune` delete
 * what the file does not name; the rest is unchanged. Applying the same file twice plans nothing the second time.
 * An entry without `apiKey` (its reference gave none) is unchanged when stored at the same URL, its key not
 * checked; otherwise an error at its place, as every such entry's. `grants`, the file's `grants:` list when
 * it has one, is planned against the stored grants (see `planGrants`).
 * Linear in the file's size: one lookup per entry, the steps gathered in one array (fp-ts's array traverse
 * copies the array at every element, quadratic for a file of 100,000 entries).
 */
export const planConfiguration =
  (deps: PlanDeps) =>
  (rawDesired: unknown, options: PlanOptions = {}): TE.TaskEither<DomainError, Plan> =>
    pipe(
      TE.fromEither(decodeDesired(rawDesired)),
      TE.bindTo("desired"),
      TE.bind("grants", () =>
        options.grants === undefined
          ? TE.right<DomainError, readonly GrantStep[]>([])
          : pipe(
              deps.grants.list(),
              TE.flatMap((stored) => TE.fromEither(planGrants(options.grants, stored, options.prune === true))),
            ),
      ),
      TE.flatMap(({ desired, grants }) =>
        pipe(
          deps.repository.list(),
          TE.flatMap((stored): TE.TaskEither<DomainError, Plan> => async () => {
            const steps: PlanStep[] = [];
            const errors: FieldError[] = [];
            const step = stepFor(deps, new Set(stored.map(({ alias }) => aliasKey(alias))));
            for (const wanted of desired) {
              const planned = await step(wanted)();
              if (E.isRight(planned)) steps.push(planned.right);
              else if (planned.left._tag === "InvalidInput") errors.push(...planned.left.errors);
              else return planned;
            }
            if (errors.length > 0) return E.left(invalidInput(errors));
            const wanted = new Set(desired.map(({ connection }) => aliasKey(connection.alias)));
            for (const { alias } of options.prune === true ? stored : [])
              if (!wanted.has(aliasKey(alias))) steps.push({ action: "delete", alias, fields: [] });
            return E.right({
              steps,
              grants,
              desired: new Map(
                desired.flatMap(({ connection }) =>
                  hasKey(connection) ? [[aliasKey(connection.alias), connection] as const] : [],
                ),
              ),
            });
          }),
        ),
      ),
    );

/**
 * The plan against a store that does not exist yet (a dry run creates none): every entry created, the same
 * checks of the file as `planConfiguration`'s.
 */
export const planForNoStore = planConfiguration({
  repository: { get: (alias) => TE.left(notFound(alias)), list: () => TE.right([]) },
  // Never asked: nothing is stored to compare a key with.
  fingerprints: { fingerprint: () => "" },
  grants: { list: () => TE.right([]) },
});

/**
 * A step's outcome. `interrupted`: under way when the apply was stopped (it may or may not have taken
 * effect); `skipped`: not started, because the apply was stopped.
 */
export type StepResult =
  | { readonly step: PlanStep | GrantStep; readonly outcome: "applied" | "unchanged" | "interrupted" | "skipped" }
  | { readonly step: PlanStep | GrantStep; readonly outcome: "failed"; readonly error: DomainError };

type Write = TE.TaskEither<DomainError, unknown>;

// The request body the writes take (they decode it as any request's): the given fields, the key revealed for it.
const bodyOf = (desired: DesiredConnection, fields: readonly ChangeableField[]): Record<string, string> =>
  Object.fromEntries(
    fields.flatMap((field) =>
      desired[field] === undefined
        ? []
        : [[field, (CONNECTION_FIELDS[field] as t.Encoder<unknown, string>).encode(desired[field])]],
    ),
  );

export interface ApplyOptions {
  readonly force?: boolean;
  /** How many steps run at once (default 1). Aliases of a plan are distinct, so its steps are independent; the embedded store commits concurrent writes together. */
  readonly concurrency?: number;
  /** Stops the apply: no step starts after it, and the steps under way are reported `interrupted` at once. */
  readonly signal?: AbortSignal;
}

/**
 * Carries out a plan through the given writes (the service's audited add, update and delete: each
 * validated with the orchestrator unless `force`) and the grant writes, up to `concurrency` steps at once. A step
 * that fails does not stop the others: the results, in the plan's order (the connections', then the grants'), say
 * exactly which were applied and which were not.
 */
export const applyPlan =
  (writes: {
    readonly add: (body: Record<string, string>, force: boolean) => Write;
    readonly update: (alias: Alias, change: Record<string, string>, force: boolean) => Write;
    readonly remove: (alias: Alias) => Write;
    readonly addGrant: (grant: GrantRequest) => Write;
    readonly removeGrant: (id: string) => Write;
  }) =>
  async (plan: Plan, options: ApplyOptions = {}): Promise<readonly StepResult[]> => {
    const force = options.force === true;
    const { signal } = options;
    const stopped = new Promise<"stopped">((resolve) => {
      if (signal?.aborted === true) resolve("stopped");
      signal?.addEventListener("abort", () => resolve("stopped"), { once: true });
    });
    const writeOf = (step: PlanStep | GrantStep): Write | undefined => {
      if ("grant" in step)
        return step.action === "create"
          ? writes.addGrant(step.grant)
          : step.action === "delete" && step.id !== undefined
            ? writes.removeGrant(step.id)
            : undefined;
      const desired = plan.desired.get(aliasKey(step.alias));
      return step.action === "create" && desired !== undefined
        ? writes.add({ alias: desired.alias, ...bodyOf(desired, step.fields) }, force)
        : step.action === "update" && desired !== undefined
          ? writes.update(step.alias, bodyOf(desired, step.fields), force)
          : step.action === "delete"
            ? writes.remove(step.alias)
            : undefined;
    };
    const steps: readonly (PlanStep | GrantStep)[] = [...plan.steps, ...plan.grants];
    const results: StepResult[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < steps.length; index = next++) {
        const step = steps[index] as PlanStep | GrantStep;
        const write = writeOf(step);
        if (write === undefined) results[index] = { step, outcome: "unchanged" };
        else if (signal?.aborted === true) results[index] = { step, outcome: "skipped" };
        else {
          const done = await Promise.race([write(), stopped]);
          results[index] =
            done === "stopped"
              ? { step, outcome: "interrupted" }
              : E.isRight(done)
                ? { step, outcome: "applied" }
                : { step, outcome: "failed", error: done.left };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 1, steps.length)) }, worker));
    return results;
  };
