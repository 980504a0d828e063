import { readFile } from "node:fs/promises";
import {
  CreatedWebhook,
  Delivery,
  DELIVERY_STATUSES,
  Grant,
  IssuedToken,
  PingAnswer,
  ROLES,
  ServiceToken,
  Webhook,
  WEBHOOK_KINDS,
} from "@sdwan-connections/core/wire";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { OUTPUT_OPTIONS, type CommandOutput, type CommandSpec, type OptionSpec } from "./command.js";
import { EXIT } from "./exit-codes.js";
import { cell, table } from "./output.js";
import type { RestApi, RestFailure } from "./rest-admin.js";

/** What an admin command is given: its arguments and options as parsed (a repeatable option's values in an array). */
export type AdminOptions = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/**
 * A command of the service's admin API (SPEC §9, §11): service tokens, grants, webhooks. They run in a service's
 * context only (a context with --server, or SDWAN_SERVER), over its REST API: the store keeps no copy of them a
 * local command could read without the service's rules.
 */
export interface AdminCommand extends CommandSpec {
  run(api: RestApi, args: readonly string[], options: AdminOptions): TE.TaskEither<RestFailure, CommandOutput>;
}

const Nothing = t.unknown;

const data = (value: unknown, forPeople: (width: number) => string): CommandOutput => ({ data: value, forPeople });
const usage = (message: string): TE.TaskEither<RestFailure, never> => TE.left({ exit: "usage", message });
const text = (options: AdminOptions, name: string): string | undefined =>
  typeof options[name] === "string" ? (options[name] as string) : undefined;
const texts = (options: AdminOptions, name: string): readonly string[] => {
  const value = options[name];
  return typeof value === "string" ? [value] : Array.isArray(value) ? (value as readonly string[]) : [];
};
const at = (date: Date | null): string => (date === null ? "never" : date.toISOString());
const path = (...parts: readonly string[]) => parts.map(encodeURIComponent).join("/");

/** A whole number given as text, as the API wants it; anything else is sent as given, for the service to refuse by name. */
const wholeNumber = (raw: string): number | string => (/^\d{1,9}$/.test(raw) ? Number(raw) : raw);

/** A token named by its id or its name (the list read to find it). */
const tokenId = (api: RestApi, idOrName: string): TE.TaskEither<RestFailure, ServiceToken> =>
  pipe(
    api.request("GET", "/tokens", t.readonlyArray(ServiceToken)),
    TE.flatMap((tokens) => {
      const found = tokens.find((token) => token.id === idOrName) ?? tokens.find((token) => token.name === idOrName);
      return found === undefined
        ? TE.left<RestFailure>({ exit: "notFound", message: `no service token with the id or name '${idOrName}'` })
        : TE.right(found);
    }),
  );

/** The token once, with what to do with it: the only time it is shown. */
const issued = (verb: string, token: IssuedToken): CommandOutput =>
  data(
    token,
    () =>
      `Service token ${token.name} ${verb} (${token.role ?? "no role: its grants only"}, expires ${at(token.expiresAt)}). It is shown this once; keep it secret:\n${token.token}\n`,
  );

/**
 * `--grant` of `tokens create`: `PATTERN:VERB`, or `SUBJECT:PATTERN:VERB` with the token's own subject
 * (`token:NAME`; a token's creation grants only the token). The pattern and the verb are checked by the service.
 */
const tokenGrants = (name: string, raw: readonly string[]) => {
  const grants: { pattern: string; verb: string }[] = [];
  for (const one of raw) {
    const parts = one.split(":");
    const verb = parts.pop();
    const pattern = parts.pop();
    const subject = parts.join(":");
    if (verb === undefined || pattern === undefined || pattern === "")
      return { error: `--grant must be PATTERN:VERB or token:${name}:PATTERN:VERB, not '${one}'` };
    if (subject !== "" && subject !== `token:${name}`)
      return { error: `--grant: a token's creation grants the token itself (token:${name}), not '${subject}'` };
    grants.push({ pattern, verb });
  }
  return { grants };
};

const OUTPUT: Record<string, OptionSpec> = OUTPUT_OPTIONS;

export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  {
    name: "tokens create",
    summary: "create a service token (admin): printed this once, never again",
    args: ["name"],
    options: {
      "expires-in-days": { type: "string", value: "days", description: "its lifetime, 1 to 365 days (required)" },
      role: { type: "string", value: ROLES.join("|"), description: "its role (default viewer; none with --grant)" },
      grant: {
        type: "string",
        value: "pattern:verb",
        multiple: true,
        description: "a grant of the token's own (PATTERN:VERB or token:NAME:PATTERN:VERB); repeatable",
      },
      ...OUTPUT,
    },
    notes:
      "Use it as SDWAN_SERVER=URL SDWAN_TOKEN=sdw_… sdwan-connections list, or keep it in a file (SDWAN_TOKEN_FILE, or config set-context NAME --server URL --token-file FILE).",
    run: (api, [name = ""], options) => {
      const days = text(options, "expires-in-days");
      if (days === undefined) return usage("--expires-in-days is required (1 to 365)");
      const grants = tokenGrants(name, texts(options, "grant"));
      if ("error" in grants) return usage(grants.error);
      const role = text(options, "role");
      return pipe(
        api.request("POST", "/tokens", IssuedToken, {
          ok: 201,
          body: {
            name,
            expiresInDays: wholeNumber(days),
            ...(role === undefined ? {} : { role }),
            ...(grants.grants.length === 0 ? {} : { grants: grants.grants }),
          },
        }),
        TE.map((token) => issued("created", token)),
      );
    },
  },
  {
    name: "tokens list",
    summary: "the service tokens (admin): name, role, expiry, last use; never a secret",
    args: [],
    options: OUTPUT,
    run: (api) =>
      TE.map((tokens: readonly ServiceToken[]) =>
        data(tokens, (width) =>
          tokens.length === 0
            ? "No service tokens.\n"
            : table(
                ["ID", "NAME", "ROLE", "EXPIRES", "LAST USED", "CREATED BY"],
                tokens.map((token) => [
                  token.id,
                  token.name,
                  cell(token.role ?? "(grants)"),
                  at(token.expiresAt),
                  at(token.lastUsedAt),
                  token.createdBy,
                ]),
                width,
              ),
        ),
      )(api.request("GET", "/tokens", t.readonlyArray(ServiceToken))),
  },
  {
    name: "tokens renew",
    summary: "give a service token a new secret (admin), printed this once; the old one works for the overlap",
    args: ["id|name"],
    options: {
      "overlap-hours": {
        type: "string",
        value: "hours",
        description: "how long the old secret keeps working, 0 to 720 (default 24)",
      },
      ...OUTPUT,
    },
    run: (api, [idOrName = ""], options) => {
      const overlap = text(options, "overlap-hours");
      return pipe(
        tokenId(api, idOrName),
        TE.flatMap((token) =>
          api.request("POST", `/tokens/${path(token.id)}/renew`, IssuedToken, {
            body: overlap === undefined ? {} : { overlapHours: wholeNumber(overlap) },
          }),
        ),
        TE.map((token) => issued("renewed", token)),
      );
    },
  },
  {
    name: "tokens revoke",
    summary: "revoke a service token (admin): refused by every instance within a second",
    args: ["id|name"],
    options: {},
    run: (api, [idOrName = ""]) =>
      pipe(
        tokenId(api, idOrName),
        TE.flatMap((token) =>
          TE.map(() => ({ message: `Service token ${token.name} revoked.\n` }))(
            api.request("DELETE", `/tokens/${path(token.id)}`, Nothing, { ok: 204 }),
          ),
        ),
      ),
  },
  {
    name: "grants list",
    summary: "the grants (admin): who may read, use or manage which aliases",
    args: [],
    options: OUTPUT,
    run: (api) =>
      TE.map((grants: readonly Grant[]) =>
        data(grants, (width) =>
          grants.length === 0
            ? "No grants.\n"
            : table(
                ["ID", "SUBJECT", "PATTERN", "VERB"],
                grants.map((grant) => [grant.id, grant.subject, grant.pattern, grant.verb]),
                width,
              ),
        ),
      )(api.request("GET", "/grants", t.readonlyArray(Grant))),
  },
  {
    name: "grants add",
    summary: "grant SUBJECT (user:, oidc:, token:, group:) VERB (read, use, manage) on aliases matching PATTERN",
    args: ["subject", "pattern", "verb"],
    options: OUTPUT,
    run: (api, [subject, pattern, verb]) =>
      TE.map((grant: Grant) =>
        data(grant, () => `Granted ${grant.subject} ${grant.verb} on ${grant.pattern} (grant ${grant.id}).\n`),
      )(api.request("POST", "/grants", Grant, { ok: 201, body: { subject, pattern, verb } })),
  },
  {
    name: "grants delete",
    summary: "remove a grant (admin), by its id (grants list)",
    args: ["id"],
    options: {},
    run: (api, [id = ""]) =>
      TE.map(() => ({ message: `Grant ${id} removed.\n` }))(
        api.request("DELETE", `/grants/${path(id)}`, Nothing, { ok: 204 }),
      ),
  },
  {
    name: "webhooks list",
    summary: "the webhooks (admin); never a secret",
    args: [],
    options: OUTPUT,
    run: (api) =>
      TE.map((webhooks: readonly Webhook[]) =>
        data(webhooks, (width) =>
          webhooks.length === 0
            ? "No webhooks.\n"
            : table(
                ["ID", "URL", "KIND", "TYPES", "DISABLED"],
                webhooks.map((webhook) => [
                  webhook.id,
                  webhook.url,
                  webhook.kind,
                  webhook.types.join(","),
                  webhook.disabledAt === null ? "" : `since ${at(webhook.disabledAt)} (410 Gone)`,
                ]),
                width,
              ),
        ),
      )(api.request("GET", "/webhooks", t.readonlyArray(Webhook))),
  },
  {
    name: "webhooks add",
    summary: "POST every event (or those of --types) to URL, signed (admin); its signing secret printed this once",
    args: ["url"],
    options: {
      kind: { type: "string", value: WEBHOOK_KINDS.join("|"), description: "what is posted (default cloudevents)" },
      types: {
        type: "string",
        value: "types",
        description: "comma-separated event types, `*` a wildcard (e.g. connection.health.*); default every event",
      },
      username: { type: "string", value: "user", description: "opennms: the OpenNMS user posting events" },
      "password-file": {
        type: "string",
        value: "file",
        description: "opennms: the file holding that user's password (never on the command line)",
      },
      ...OUTPUT,
    },
    run: (api, [url], options) => {
      const kind = text(options, "kind");
      const types = text(options, "types");
      const username = text(options, "username");
      const passwordFile = text(options, "password-file");
      return pipe(
        (passwordFile === undefined
          ? TE.right<RestFailure, string | undefined>(undefined)
          : TE.tryCatch(
              async () => (await readFile(passwordFile, "utf8")).replace(/\r?\n$/, ""),
              (error): RestFailure => ({
                exit: "usage",
                message: `--password-file ${passwordFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
              }),
            )) as TE.TaskEither<RestFailure, string | undefined>,
        TE.flatMap((password) =>
          api.request("POST", "/webhooks", CreatedWebhook, {
            ok: 201,
            body: {
              url,
              ...(kind === undefined ? {} : { kind }),
              ...(types === undefined ? {} : { types: types.split(",").map((type) => type.trim()) }),
              ...(username === undefined ? {} : { username }),
              ...(password === undefined ? {} : { password }),
            },
          }),
        ),
        TE.map((webhook) =>
          data(
            webhook,
            () =>
              `Webhook ${webhook.id} added: ${webhook.kind} to ${webhook.url} (${webhook.types.join(",")}). Its signing secret, shown this once:\n${webhook.secret}\n`,
          ),
        ),
      );
    },
  },
  {
    name: "webhooks delete",
    summary: "remove a webhook and its deliveries (admin)",
    args: ["id"],
    options: {},
    run: (api, [id = ""]) =>
      TE.map(() => ({ message: `Webhook ${id} removed.\n` }))(
        api.request("DELETE", `/webhooks/${path(id)}`, Nothing, { ok: 204 }),
      ),
  },
  {
    name: "webhooks ping",
    summary: "send a signed ping now (admin) and say what the receiver answered (exit 10 when it did not take it)",
    args: ["id"],
    options: OUTPUT,
    run: (api, [id = ""]) =>
      TE.map((ping: PingAnswer): CommandOutput => {
        const took = ping.status !== null && ping.status >= 200 && ping.status < 300;
        return {
          ...data(ping, () =>
            took
              ? `The receiver took the ping: HTTP ${ping.status} in ${ping.latencyMs} ms.\n`
              : `The receiver did not take the ping: ${ping.status === null ? (ping.error ?? "no answer") : `HTTP ${ping.status}`} (${ping.latencyMs} ms).\n`,
          ),
          // `webhooks ping ID && …` goes on only when the receiver took it.
          ...(took ? {} : { exitCode: EXIT.pingNotTaken }),
        };
      })(api.request("POST", `/webhooks/${path(id)}/ping`, PingAnswer)),
  },
  {
    name: "webhooks deliveries",
    summary: "a webhook's newest deliveries (admin): status, attempts, latency; never a body",
    args: ["id"],
    options: {
      status: { type: "string", value: DELIVERY_STATUSES.join("|"), description: "only the deliveries in this state" },
      limit: { type: "string", value: "n", description: "how many, 1 to 100 (default 20)" },
      ...OUTPUT,
    },
    run: (api, [id = ""], options) => {
      const query = new URLSearchParams(
        ["status", "limit"].flatMap((name) => {
          const value = text(options, name);
          return value === undefined ? [] : [[name, value] as [string, string]];
        }),
      ).toString();
      return TE.map((deliveries: readonly Delivery[]) =>
        data(deliveries, (width) =>
          deliveries.length === 0
            ? "No deliveries.\n"
            : table(
                ["ID", "EVENT", "STATUS", "ATTEMPTS", "LAST ANSWER", "NEXT OR SETTLED"],
                deliveries.map((delivery) => {
                  const last = delivery.attempts.at(-1);
                  return [
                    delivery.id,
                    delivery.eventId,
                    delivery.status,
                    String(delivery.attempts.length),
                    last === undefined
                      ? ""
                      : `${last.status === null ? (last.error ?? "no answer") : `HTTP ${last.status}`} (${last.latencyMs} ms)`,
                    at(delivery.nextAttemptAt),
                  ];
                }),
                width,
              ),
        ),
      )(
        api.request(
          "GET",
          `/webhooks/${path(id)}/deliveries${query === "" ? "" : `?${query}`}`,
          t.readonlyArray(Delivery),
        ),
      );
    },
  },
  {
    name: "webhooks redeliver",
    summary: "send a delivered or dead delivery's event again (admin): same webhook-id, audited",
    args: ["id", "delivery"],
    options: OUTPUT,
    run: (api, [id = "", delivery = ""]) =>
      TE.map((queued: Delivery) =>
        data(
          queued,
          () => `Event ${queued.eventId} queued again for webhook ${queued.webhookId} (delivery ${queued.id}).\n`,
        ),
      )(
        api.request("POST", `/webhooks/${path(id)}/deliveries/${path(delivery)}/redeliver`, Delivery, {
          ok: 202,
        }),
      ),
  },
];

/** The commands that group admin subcommands, as `config` groups the contexts'. */
export const ADMIN_GROUPS = ["tokens", "grants", "webhooks"] as const;
