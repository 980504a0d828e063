import type { Groups } from "@sdwan-connections/composition";
import { subjectsOf, type GrantService } from "@sdwan-connections/core";
import { Me } from "@sdwan-connections/core/wire";
import type { Router } from "express";
import { principalOf, needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { userOf } from "../middleware/request-context.js";
import { respond, sendJson } from "../respond.js";

/**
 * docs/interface.md §5: who the credentials belong to and their role, so a
 * client (the console) can check a sign-in and offer only what the role may do.
 * A user signed in with a bearer token is its principal (`oidc:NAME`). Served without authentication (benchmarks only), everyone is an admin.
 * With `?grants=true`, also the grants to the principal or to one of its groups, as `{pattern, verb}`: what it may
 * do beside its role (SPEC §11), so the console shows only the controls their verbs allow.
 */
export const meRoutes = (router: Router, grants: GrantService, groups: () => Groups): void => {
  router
    .route("/me")
    .get(
      needs("any"),
      withFlags(["grants"], async (_req, res, flags) => {
        const user = userOf(res.locals);
        // A provider's user in no admin or viewer group has no role (null): it may read nothing.
        const me: Me =
          user === undefined ? { user: "anonymous", role: "admin" } : { user: user.name, role: user.role ?? null };
        if (!flags.grants || user === undefined) {
          sendJson(res, 200, Me, flags.grants ? { ...me, grants: [] } : me);
          return;
        }
        const subjects = subjectsOf(principalOf(user, groups()));
        await respond(res, grants.list(), (listed) =>
          sendJson(res, 200, Me, {
            ...me,
            grants: listed
              .filter((grant) => subjects.has(grant.subject))
              .map(({ pattern, verb }) => ({ pattern, verb })),
          }),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
};
