import { GroupsFileCodec, type Groups } from "@sdwan-connections/composition";
import type * as t from "io-ts";
import { hash, randomBytes } from "node:crypto";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";

export type Role = "admin" | "viewer";

export interface UserEntry {
  readonly role: Role;
  /** Every password is checked against a bcrypt hash, the environment admin's too (hashed at start). */
  readonly hash: string;
}

/** Every user who may sign in, by name. */
export type Users = ReadonlyMap<string, UserEntry>;

const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/** The lowest bcrypt cost used for a password this service hashes itself (bcryptjs's default). */
export const MIN_BCRYPT_COST = 10;

/** The cost (log2 rounds) of a bcrypt hash. */
export const bcryptCost = (hash: string): number => Number(hash.slice(4, 6));

/**
 * The highest cost among the users' hashes (at least MIN_BCRYPT_COST): every
 * check costs about as long as the slowest user's, so the time of a failed
 * login tells neither whether the user exists nor which kind of user it is.
 */
export const highestCost = (hashes: Iterable<string>): number =>
  Math.max(MIN_BCRYPT_COST, ...[...hashes].map(bcryptCost));

/**
 * Parses an htpasswd file: `name:hash` lines, `#` comments and blank lines
 * ignored. Only bcrypt hashes are accepted (`htpasswd -B`); any other line
 * fails with its line number (never its content: it holds a hash).
 */
export const parseHtpasswd = (text: string, source: string): E.Either<string, Map<string, string>> => {
  const users = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    const hash = line.slice(colon + 1);
    if (colon <= 0 || !BCRYPT_HASH.test(hash)) {
      return E.left(`${source}: line ${index + 1} is not 'user:bcrypt-hash' (create entries with 'htpasswd -B')`);
    }
    users.set(name, hash);
  }
  return E.right(users);
};

/** What a verified secret (a header, a token) is remembered by: its SHA-256 in one call, never the secret itself. */
export const cacheKey = (secret: string): string => hash("sha256", secret, "base64");

/** The file in the data directory holding the generated admin, when there is one. */
export const generatedAdminFile = (dataDir: string): string => join(dataDir, "admin.htpasswd");

export const GENERATED_ADMIN_USER = "admin";

export interface UserSources {
  readonly admin: { readonly user: string; readonly password: string } | undefined;
  readonly htpasswdFile: string | undefined;
  readonly viewers: readonly string[];
  readonly dataDir: string;
}

/** The file's text, undefined when there is none, or why it cannot be read. */
const readIfPresent =
  (path: string): TaskEither<string, string | undefined> =>
  async () => {
    try {
      return E.right(await readFile(path, "utf8"));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === "ENOENT" ? E.right(undefined) : E.left(`cannot read ${path} (${code ?? "unknown error"})`);
    }
  };

/**
 * Reads every configured user: the htpasswd file (viewers named in
 * SDWAN_VIEWERS, everyone else admin), the environment's admin, and the
 * generated admin in the data directory. Fails with one line on a bad file.
 */
export const loadUsers =
  (sources: UserSources): TaskEither<string, Users> =>
  async () => {
    const users = new Map<string, UserEntry>();
    const viewers = new Set(sources.viewers);
    const files: [string, string][] = [];
    if (sources.htpasswdFile !== undefined) {
      const text = await readIfPresent(sources.htpasswdFile)();
      if (E.isLeft(text)) return E.left(`SDWAN_HTPASSWD_FILE: ${text.left}`);
      if (text.right === undefined) return E.left(`SDWAN_HTPASSWD_FILE: no file at ${sources.htpasswdFile}`);
      files.push([text.right, "SDWAN_HTPASSWD_FILE"]);
    }
    const generated = await readIfPresent(generatedAdminFile(sources.dataDir))();
    if (E.isLeft(generated)) return generated;
    if (generated.right !== undefined) files.push([generated.right, generatedAdminFile(sources.dataDir)]);
    for (const [text, source] of files) {
      const parsed = parseHtpasswd(text, source);
      if (E.isLeft(parsed)) return parsed;
      for (const [name, hash] of parsed.right) users.set(name, { role: viewers.has(name) ? "viewer" : "admin", hash });
    }
    if (sources.admin !== undefined) {
      // Hashed like the others, at the highest cost in use, so that its check takes as long as theirs.
      const cost = highestCost([...users.values()].map((user) => user.hash));
      users.set(sources.admin.user, { role: "admin", hash: await bcrypt.hash(sources.admin.password, cost) });
    }
    return E.right(users);
  };

/** SDWAN_GROUPS_FILE's groups (none when it is not set), decoded by the composition's GroupsFileCodec; a missing file is an error. */
export const loadGroups =
  (groupsFile: string | undefined): TaskEither<string, Groups> =>
  async () => {
    if (groupsFile === undefined) return E.right(new Map());
    const text = await readIfPresent(groupsFile)();
    if (E.isLeft(text)) return E.left(`SDWAN_GROUPS_FILE: ${text.left}`);
    if (text.right === undefined) return E.left(`SDWAN_GROUPS_FILE: no file at ${groupsFile}`);
    return E.mapLeft((errors: t.Errors) => `SDWAN_GROUPS_FILE: ${errors[0]?.message ?? "is not a groups file"}`)(
      GroupsFileCodec.decode(text.right),
    );
  };

/** The admin generated when no user was configured: its password only when it was created just now. */
export interface GeneratedAdmin {
  readonly user: string;
  readonly file: string;
  readonly password?: string;
}

/**
 * With no user configured anywhere, creates an admin with a random password
 * and stores only its bcrypt hash in the data directory. Returns the
 * password so the caller can print it once; the admin without it when an
 * earlier start created it; undefined when users are configured.
 */
export const ensureAdmin =
  (sources: UserSources): TaskEither<string, GeneratedAdmin | undefined> =>
  async () => {
    const file = generatedAdminFile(sources.dataDir);
    if (sources.admin !== undefined || sources.htpasswdFile !== undefined) return E.right(undefined);
    const existing = await readIfPresent(file)();
    if (E.isLeft(existing)) return existing;
    if (existing.right !== undefined) return E.right({ user: GENERATED_ADMIN_USER, file });
    const password = randomBytes(18).toString("base64url");
    const hash = await bcrypt.hash(password, 12);
    try {
      await mkdir(sources.dataDir, { recursive: true, mode: 0o700 });
      await writeFile(file, `${GENERATED_ADMIN_USER}:${hash}\n`, { mode: 0o600, flag: "wx" });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another instance sharing the data directory created it first: its password was printed there.
      return code === "EEXIST"
        ? E.right({ user: GENERATED_ADMIN_USER, file })
        : E.left(`SDWAN_DATA_DIR: cannot create ${file} (${code ?? "unknown error"})`);
    }
    return E.right({ user: GENERATED_ADMIN_USER, password, file });
  };
