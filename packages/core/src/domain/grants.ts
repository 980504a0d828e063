import * as t from "io-ts";
import { ALIAS_MAX_LENGTH, aliasKey, brandedString, madeOnFirstUse, type Branded } from "./codecs.js";
import { strictObject } from "./decode.js";
import { compileGlob, compileGlobSet, type Glob } from "./glob.js";
import type { StoredChange } from "./stored-change.js";

/** What a grant allows on the aliases it covers, each verb including the ones before it (SPEC §11). */
export const GRANT_VERBS = ["read", "use", "manage"] as const;
export type GrantVerb = (typeof GRANT_VERBS)[number];

/** Who a grant is for: a principal (`user:NAME`, `oidc:NAME`, `token:NAME`) or a group (`group:NAME`). */
export type Subject = Branded<"Subject">;
/** An alias glob: alias characters and `*` (any run of them), matched ignoring case as aliases are. */
export type AliasPattern = Branded<"AliasPattern">;

export const SUBJECT_KINDS = ["user", "oidc", "token", "group"] as const;
export const subjectPattern = madeOnFirstUse(() => /^(?:user|oidc|token|group):[^\s\p{Cc}\p{Cf}]{1,256}$/u);
export const ALIAS_GLOB_PATTERN = /^[A-Za-z0-9._*-]+$/u;

export const SubjectCodec = brandedString<Subject>("Subject", (value) =>
  subjectPattern().test(value)
    ? undefined
    : `must be ${SUBJECT_KINDS.map((kind) => `${kind}:NAME`).join(", ")} (a name of 1 to 256 visible characters)`,
);
export const AliasPatternCodec = brandedString<AliasPattern>("AliasPattern", (value) =>
  value.length > 0 && value.length <= ALIAS_MAX_LENGTH && ALIAS_GLOB_PATTERN.test(value)
    ? undefined
    : `must be 1 to ${ALIAS_MAX_LENGTH} letters, digits, '.', '_', '-' or '*' (any run of characters)`,
);
export const GrantVerbCodec = t.keyof({ read: null, use: null, manage: null }, "GrantVerb");

const grantProps = { subject: SubjectCodec, pattern: AliasPatternCodec, verb: GrantVerbCodec };
/** A grant: `subject` may do `verb` (and the verbs before it) on every alias `pattern` matches. */
export const GrantCodec = t.type({ id: t.string, ...grantProps }, "Grant");
export type Grant = t.TypeOf<typeof GrantCodec>;
/** A grant as a request gives it (POST /grants, a service token's `grants`): no id, no other field. */
export const GrantRequestCodec = strictObject("GrantRequest", grantProps, t.type(grantProps));
export type GrantRequest = t.TypeOf<typeof GrantRequestCodec>;

/** Whether two grants say the same thing (the store refuses the second): same subject, verb and pattern ignoring case. */
export const sameGrant = (a: Omit<Grant, "id">, b: Omit<Grant, "id">): boolean =>
  a.subject === b.subject && a.verb === b.verb && aliasKey(a.pattern) === aliasKey(b.pattern);

/** The grant store's rules over its grants, which each store binds to its medium: one grant of each kind; remove by id. */
export const grantRules = {
  add:
    (grant: Grant) =>
    (grants: readonly Grant[]): StoredChange<readonly Grant[], boolean> =>
      grants.some((one) => sameGrant(one, grant)) ? { answer: false } : { next: [...grants, grant], answer: true },
  remove:
    (id: string) =>
    (grants: readonly Grant[]): StoredChange<readonly Grant[], Grant | undefined> => {
      const removed = grants.find((one) => one.id === id);
      return removed === undefined
        ? { answer: undefined }
        : { next: grants.filter((one) => one !== removed), answer: removed };
    },
};

/** How a grant reads in the audit trail and in logs: `user:alice manage prod-*`. */
export const describeGrant = ({ subject, verb, pattern }: Omit<Grant, "id">): string => `${subject} ${verb} ${pattern}`;

/** The roles of SPEC §5: an admin may do everything, a viewer call every GET endpoint. */
export const ROLES = ["admin", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** Who is asking, as the access decision needs it. */
export interface Principal {
  /** `user:NAME`, `oidc:NAME` or `token:NAME`. */
  readonly name: string;
  /** Its groups' names (without `group:`). */
  readonly groups: readonly string[];
  readonly role: Role | undefined;
}

// SPEC §5: a viewer may call every GET endpoint, so it reads and uses (validates, lists customers) every connection.
const ROLE_LEVEL: Readonly<Record<Role, number>> = { admin: 3, viewer: 2 };
/** The verbs a level gives: each verb includes the ones before it. */
const verbsAt = (level: number): readonly GrantVerb[] => GRANT_VERBS.slice(0, level);

/** Whether `pattern` covers `alias`, ignoring case. */
export const patternMatches = (pattern: string, alias: string): boolean =>
  compileGlob(pattern, { ignoreCase: true }).test(alias);

/** What a principal may do, compiled once for many aliases. */
export interface Access {
  /** The verbs on `alias`: the union (allow only) of the role's and of the grants'. */
  verbs(alias: string): readonly GrantVerb[];
  /** Whether some grant (not the role) gives `verb`, or a verb after it, on some alias. */
  granted(verb: GrantVerb): boolean;
}

/** The subjects whose grants are a principal's: itself and each of its groups. */
export const subjectsOf = (principal: Principal): ReadonlySet<string> =>
  new Set([principal.name, ...principal.groups.map((group) => `group:${group}`)]);

/**
 * What `principal` may do: its role, and the grants to it or to one of its groups, their patterns compiled once per
 * verb (`compileGlobSet`), so a list of any length costs an alias a lookup per verb above the role and a match of
 * the patterns whose head it starts with (each linear in the alias).
 */
export const accessOf = (principal: Principal, grants: readonly Grant[]): Access => {
  const subjects = subjectsOf(principal);
  const floor = principal.role === undefined ? 0 : ROLE_LEVEL[principal.role];
  const patterns = GRANT_VERBS.map((verb) =>
    grants
      .filter((grant) => grant.verb === verb && subjects.has(grant.subject))
      .map((grant) => aliasKey(grant.pattern)),
  );
  const tests: readonly (Glob | undefined)[] = patterns.map((globs, index) =>
    index + 1 <= floor || globs.length === 0 ? undefined : compileGlobSet(globs),
  );
  const grantedLevel = patterns.reduce((level, globs, index) => (globs.length > 0 ? index + 1 : level), 0);
  return {
    verbs: (alias) => {
      const key = aliasKey(alias);
      let level = floor;
      for (let index = tests.length - 1; index >= level; index -= 1) {
        if (tests[index]?.test(key) === true) {
          level = index + 1;
          break;
        }
      }
      return verbsAt(level);
    },
    granted: (verb) => grantedLevel >= GRANT_VERBS.indexOf(verb) + 1,
  };
};
