import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Pool, PoolClient } from "pg";
import { storageFailure, type DomainError } from "@sdwan-connections/core";
import { withDedicatedClient } from "./dedicated-client.js";
import { databaseFailure } from "./database-errors.js";

/** One step of the schema; applied once, in order, each in its own transaction. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The schema's history. Never edit an applied migration: append a new one.
 *
 * `alias_key` is the alias in lower case (core's `aliasKey`); its primary
 * key makes the database itself refuse `Lab` when `lab` exists, and the check
 * keeps it honest. `api_key` holds a `SealedSecret` of @sdwan-connections/secrets
 * (AES-256-GCM, associated data = alias_key), never the key itself.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "create connections",
    sql: `
      create table connections (
        alias_key        text primary key,
        alias            text not null,
        orchestrator_url text not null,
        api_key          text not null,
        created_at       timestamptz not null default now(),
        updated_at       timestamptz not null default now(),
        constraint connections_alias_key_is_lower_alias check (alias_key = lower(alias)),
        constraint connections_api_key_is_sealed check (api_key like 'v1.%')
      )`,
  },
  {
    // A connection's version (1 when added, +1 per change) for writes that expect one; when its key was
    // stored (null: before this migration).
    version: 2,
    name: "connection versions and key dates",
    sql: `
      alter table connections
        add column version integer not null default 1 constraint connections_version_is_positive check (version >= 1),
        add column api_key_set_at timestamptz`,
  },
  {
    // The audit trail: ids sort by time (core's auditEntryId); alias_key lets a query match the alias in any case.
    version: 3,
    name: "audit entries",
    sql: `
      create table audit_entries (
        id         text primary key,
        at         timestamptz not null,
        actor      text not null,
        request_id text,
        action     text not null,
        alias      text,
        alias_key  text generated always as (lower(alias)) stored,
        fields     text[] not null,
        forced     boolean not null,
        validation text not null,
        outcome    text not null,
        failure    text,
        detail     text
      );
      create index audit_entries_by_alias on audit_entries (alias_key, id);
      create index audit_entries_by_time on audit_entries (at)`,
  },
  {
    // Background health, shared by instances: the newest interval a connection's check was claimed for
    // (one instance wins each), its state, since when, and its last checks (JSON, newest first).
    version: 4,
    name: "connection health",
    sql: `
      create table connection_health (
        alias_key      text primary key,
        alias          text not null,
        state          text not null,
        since          timestamptz,
        checks         jsonb not null default '[]',
        claimed_window bigint not null default -1
      )`,
  },
  {
    // Failed logins and key checks per client, shared by instances (rate-limiter-flexible's layout: key, points,
    // expire in epoch ms). Releases before this one let the library create the table outside the migration lock,
    // hence "if not exists". Sealed keys may also be of format v2 (padded, @sdwan-connections/secrets).
    version: 5,
    name: "failed logins; sealed key format v2",
    sql: `
      create table if not exists sdwan_login_failures (
        key    varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      );
      alter table connections drop constraint connections_api_key_is_sealed;
      alter table connections add constraint connections_api_key_is_sealed check (api_key like 'v1.%' or api_key like 'v2.%')`,
  },
  {
    // Versions from one sequence for the whole table: every write that changes a connection (an insert by the
    // column's default, an update by the repository) takes the next, so a version names one state of one
    // connection's life and an alias added again never repeats one. Starts above every version stored.
    version: 6,
    name: "connection versions from one sequence",
    sql: `
      create sequence connection_versions as integer owned by connections.version;
      select setval('connection_versions', coalesce((select max(version) from connections), 0) + 1, false);
      alter table connections alter column version set default nextval('connection_versions')`,
  },
  {
    // The audit trail's two retentions: changes that happened (core's isAuditedChange: a successful add,
    // update, delete or rotation) and the other entries (attempts) are counted apart, so that no number of
    // attempts pushes a change out.
    version: 7,
    name: "audit entry kinds",
    sql: `
      alter table audit_entries add column kind text generated always as (
        case when outcome = 'succeeded' and action in ('add', 'update', 'delete', 'rotate-master-key') then 'change' else 'attempt' end
      ) stored;
      create index audit_entries_by_kind on audit_entries (kind, id)`,
  },
  {
    // Key lifecycle (docs/interface.md §10): the key's declared expiry, and the expiry warnings made, one row
    // per key and threshold, whose primary key lets exactly one instance make each.
    version: 8,
    name: "key expiry",
    sql: `
      alter table connections add column api_key_expires_at timestamptz;
      create table key_expiry_warnings (
        alias_key text not null,
        key_mark  text not null,
        threshold integer not null,
        at        timestamptz not null default now(),
        primary key (alias_key, key_mark, threshold)
      )`,
  },
  {
    // The audit trail is the event log: a change's entry keeps the connection's version it left or removed
    // (null otherwise, and before this migration), and every entry committed is announced on the channel
    // `sdwan_audit_entries` with its id (a NOTIFY is delivered at commit, never for a rolled-back insert),
    // whichever transaction inserts it; listeners read the entry by its id.
    version: 9,
    name: "audit entry versions; audit entries announced",
    sql: `
      alter table audit_entries add column version integer;
      create function sdwan_announce_audit_entry() returns trigger language plpgsql as $$
        begin
          perform pg_notify('sdwan_audit_entries', new.id);
          return null;
        end
      $$;
      create trigger audit_entries_announced after insert on audit_entries
        for each row execute function sdwan_announce_audit_entry()`,
  },
  {
    // Service tokens (SPEC §11): only SHA-256 hashes of the secrets, each unique, so a lookup is one index read;
    // after a renewal the secret before it works until previous_until.
    version: 10,
    name: "service tokens",
    sql: `
      create table sdwan_service_tokens (
        id             uuid primary key,
        name           text not null unique,
        role           text not null check (role in ('admin', 'viewer')),
        lifetime_days  integer not null,
        expires_at     timestamptz not null,
        last_used_at   timestamptz,
        created_by     text not null,
        created_at     timestamptz not null,
        hash           text not null unique,
        previous_hash  text unique,
        previous_until timestamptz
      )`,
  },
  {
    // Webhooks (SPEC §9), their secrets sealed as apiKeys, and the outbox: one delivery row per webhook an event
    // goes to, inserted by the statement that inserts the audit entry; relays claim them (for update skip locked).
    version: 11,
    name: "webhooks and their outbox",
    sql: `
      create table sdwan_webhooks (
        id          uuid primary key,
        url         text not null,
        types       text[] not null,
        kind        text not null check (kind in ('cloudevents', 'opennms')),
        created_at  timestamptz not null,
        disabled_at timestamptz,
        secrets     text not null
      );
      create table sdwan_webhook_deliveries (
        seq             bigserial primary key,
        id              uuid not null unique,
        webhook_id      uuid not null references sdwan_webhooks (id) on delete cascade,
        event_id        text not null,
        event           jsonb not null,
        status          text not null default 'pending' check (status in ('pending', 'delivered', 'dead')),
        next_attempt_at timestamptz not null,
        attempts        jsonb not null default '[]',
        lease_owner     text,
        lease_until     timestamptz
      );
      create index sdwan_webhook_deliveries_pending on sdwan_webhook_deliveries (webhook_id, seq) where status = 'pending';
      create index sdwan_webhook_deliveries_history on sdwan_webhook_deliveries (webhook_id, seq desc)`,
  },
  {
    // Grants (SPEC §11): one per subject, verb and pattern in any case, kept in the order given. Every change is
    // announced on the channel `sdwan_grant_changes` (at commit, whichever session makes it), so every instance
    // reads them again; a grant's add or removal is an audited change, kept by the changes' retention. A service
    // token created with grants and no role has none (null).
    version: 12,
    name: "grants",
    sql: `
      create table sdwan_grants (
        position bigserial unique,
        id       uuid primary key,
        subject  text not null,
        pattern  text not null,
        verb     text not null check (verb in ('read', 'use', 'manage'))
      );
      alter table sdwan_service_tokens alter column role drop not null;
      create unique index sdwan_grants_said_once on sdwan_grants (subject, lower(pattern), verb);
      create function sdwan_announce_grant_change() returns trigger language plpgsql as $$
        begin
          perform pg_notify('sdwan_grant_changes', '');
          return null;
        end
      $$;
      create trigger sdwan_grants_announced after insert or update or delete or truncate on sdwan_grants
        for each statement execute function sdwan_announce_grant_change();
      alter table audit_entries drop column kind;
      alter table audit_entries add column kind text generated always as (
        case when outcome = 'succeeded' and action in ('add', 'update', 'delete', 'rotate-master-key', 'grant-add', 'grant-remove')
          then 'change' else 'attempt' end
      ) stored;
      create index audit_entries_by_kind on audit_entries (kind, id)`,
  },
  {
    // Service tokens' creations, renewals and revocations are audited changes (SPEC §11), kept by the changes' retention.
    version: 13,
    name: "token changes audited",
    sql: `
      alter table audit_entries drop column kind;
      alter table audit_entries add column kind text generated always as (
        case when outcome = 'succeeded' and action in ('add', 'update', 'delete', 'rotate-master-key', 'grant-add',
          'grant-remove', 'token-create', 'token-renew', 'token-revoke')
          then 'change' else 'attempt' end
      ) stored;
      create index audit_entries_by_kind on audit_entries (kind, id)`,
  },
  {
    // A webhook's history (SPEC §9): each settlement deletes its webhook's settled deliveries beyond the newest 100
    // (core's WEBHOOK_HISTORY), read newest first from this index; the history grown before it is trimmed once.
    version: 14,
    name: "webhook delivery history bounded",
    sql: `
      create index sdwan_webhook_deliveries_settled on sdwan_webhook_deliveries (webhook_id, seq desc)
        where status <> 'pending';
      delete from sdwan_webhook_deliveries d using (
        select seq, row_number() over (partition by webhook_id order by seq desc) as position
          from sdwan_webhook_deliveries where status <> 'pending'
      ) settled
      where d.seq = settled.seq and settled.position > 100`,
  },
  {
    // An entry keeps the orchestrator URL of the connection it is about, as it was then (core's AuditEntry
    // `orchestratorUrl`): its event tells receivers the URL even once the connection is gone (SPEC §9).
    version: 15,
    name: "audit entry orchestrator URLs",
    sql: `alter table audit_entries add column orchestrator_url text`,
  },
  {
    // Webhooks' creations, deletions and disabling (a receiver's 410) are audited changes (SPEC §9), kept as tokens' are.
    version: 16,
    name: "webhook changes audited",
    sql: `
      alter table audit_entries drop column kind;
      alter table audit_entries add column kind text generated always as (
        case when outcome = 'succeeded' and action in ('add', 'update', 'delete', 'rotate-master-key', 'grant-add',
          'grant-remove', 'token-create', 'token-renew', 'token-revoke', 'webhook-create', 'webhook-delete',
          'webhook-disable')
          then 'change' else 'attempt' end
      ) stored;
      create index audit_entries_by_kind on audit_entries (kind, id)`,
  },
  {
    version: 17,
    // SPEC §12: a key kept elsewhere (a Kubernetes Secret, a variable) is never stored, only where it is.
    name: "keys kept elsewhere",
    sql: `
      alter table connections add column api_key_ref text;
      alter table connections alter column api_key drop not null;
      alter table connections add constraint connections_key_or_reference
        check ((api_key is null) <> (api_key_ref is null))`,
  },
  {
    // Key renewal (SPEC §12): whether a connection's key is renewed; the renewals in flight, one row per connection,
    // held by one instance at a time (a lease), the new key sealed; and a renewal's swap, a change like an update.
    version: 18,
    name: "key renewal",
    sql: `
      alter table connections add column key_renewal text not null default 'off'
        constraint connections_key_renewal_is_known check (key_renewal in ('auto', 'off'));
      create table sdwan_key_renewals (
        alias_key   text primary key,
        alias       text not null,
        owner       text,
        lease_until timestamptz,
        failures    integer not null default 0,
        retry_at    timestamptz,
        intent      jsonb,
        sealed_key  text constraint sdwan_key_renewals_key_is_sealed
          check (sealed_key is null or sealed_key like 'v1.%' or sealed_key like 'v2.%')
      );
      alter table audit_entries drop column kind;
      alter table audit_entries add column kind text generated always as (
        case when outcome = 'succeeded' and action in ('add', 'update', 'delete', 'rotate-master-key', 'grant-add',
          'grant-remove', 'token-create', 'token-renew', 'token-revoke', 'webhook-create', 'webhook-delete',
          'webhook-disable', 'key-renew')
          then 'change' else 'attempt' end
      ) stored;
      create index audit_entries_by_kind on audit_entries (kind, id)`,
  },
];

/** The newest schema version this release knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/**
 * Key of the session advisory lock that serialises migrations: two
 * instances starting at once take turns, the second finds nothing to do.
 * (Arbitrary constant: "sdwan" in ASCII.)
 */
export const MIGRATION_LOCK_KEY = 0x7364_7761_6e;

export interface MigrationReport {
  /** Versions applied by this call (empty when the schema was up to date). */
  readonly applied: readonly number[];
  /** The schema version after this call. */
  readonly version: number;
}

/** Its task runs inside the I/O wrapper of `migrate` (a database error rejects it there); a schema newer than this release is a Left. */
const run =
  (client: PoolClient, migrations: readonly Migration[]): TE.TaskEither<string, MigrationReport> =>
  async () => {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await client.query(
        `create table if not exists schema_migrations (
           version    integer primary key,
           name       text not null,
           applied_at timestamptz not null default now()
         )`,
      );
      const { rows } = await client.query<{ version: number }>(
        "select version from schema_migrations order by version",
      );
      const done = new Set(rows.map((row) => row.version));
      const newest = Math.max(0, ...done);
      const known = Math.max(0, ...migrations.map((migration) => migration.version));
      if (newest > known) {
        return E.left(
          `the database schema is at version ${newest}, newer than this release knows (${known}): upgrade the service`,
        );
      }
      const applied: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(migration.version)) continue;
        await client.query("begin");
        try {
          await client.query(migration.sql);
          await client.query("insert into schema_migrations (version, name) values ($1, $2)", [
            migration.version,
            migration.name,
          ]);
          await client.query("commit");
        } catch (error) {
          await client.query("rollback").catch(() => undefined);
          throw error;
        }
        applied.push(migration.version);
      }
      return E.right({ applied, version: Math.max(newest, ...applied) });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  };

/**
 * Brings the schema up to date: creates `schema_migrations` and applies every
 * missing migration in order. Safe when several instances start at once (a
 * session advisory lock makes them take turns; PostgreSQL releases it if an
 * instance dies mid-way) and when run again. Refuses a database whose schema
 * is newer than this release.
 */
export const migrate = (
  pool: Pool,
  migrations: readonly Migration[] = MIGRATIONS,
): TE.TaskEither<DomainError, MigrationReport> =>
  pipe(
    TE.tryCatch(
      () => withDedicatedClient(pool, (client) => run(client, migrations)()),
      databaseFailure("migrating the schema"),
    ),
    TE.chainEitherK(
      E.mapLeft((reason: string): DomainError =>
        storageFailure(`Storage failure while migrating the schema: ${reason}.`),
      ),
    ),
  );
