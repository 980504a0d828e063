import { compileGlob } from "@sdwan-connections/core/glob";
import { GRANT_VERBS as VERBS, type GrantVerb, type Me } from "@sdwan-connections/core/wire";

// The verbs in order, each including the ones before it (SPEC §11): read ⊂ use ⊂ manage.
export { VERBS };

// SPEC §5 in these terms: an admin manages every connection, a viewer reads and uses every one.
const ROLE_LEVEL = { admin: 3, viewer: 2 } as const;

/** Whether an alias glob (`*` any run of characters) covers `alias`, ignoring case as aliases do (core's matcher). */
const covers = (pattern: string, alias: string): boolean => compileGlob(pattern, { ignoreCase: true }).test(alias);

/**
 * The verbs the signed-in principal has on `alias`: the union (allow only) of its role's and its grants' (core's
 * `verbsOf`, from what `GET /me?grants=true` tells). The service decides; this only picks the controls to show.
 */
export const verbsOn = (me: Me, alias: string): readonly GrantVerb[] => {
  const granted = (me.grants ?? [])
    .filter((grant) => covers(grant.pattern, alias))
    .map(({ verb }) => VERBS.indexOf(verb) + 1);
  return VERBS.slice(0, Math.max(me.role === null ? 0 : ROLE_LEVEL[me.role], ...granted));
};

export const may = (me: Me, verb: GrantVerb, alias: string): boolean => verbsOn(me, alias).includes(verb);

/** Whether the principal may add some connection: an admin, or one with a `manage` grant (an add within its pattern). */
export const mayAdd = (me: Me): boolean =>
  me.role === "admin" || (me.grants ?? []).some(({ verb }) => verb === "manage");
