import * as t from "io-ts";

/** Each principal's groups, by the principal's name (`user:NAME`, `oidc:NAME`, `token:NAME`). */
export type Groups = ReadonlyMap<string, readonly string[]>;

const GROUP_NAME = /^[^\s,:#]{1,128}$/u;
// A member: a local user's plain name, or a principal (`oidc:NAME`, `token:NAME`, `user:NAME`).
const MEMBER = /^(?:(?:user|oidc|token):)?[^\s,:#]{1,256}$/u;

/**
 * SDWAN_GROUPS_FILE's contents: `group: member, member` lines, `#` comments and blank lines; a member is a
 * local user's name (`alice`, principal `user:alice`) or a principal (`oidc:bob`, `token:ci`). A group may span
 * several lines. Decoding refuses the whole file at its first bad line, named by its number.
 */
export const GroupsFileCodec = new t.Type<Groups, string, unknown>(
  "GroupsFile",
  (input): input is Groups => input instanceof Map,
  (input, context) => {
    if (typeof input !== "string") return t.failure(input, context, "must be text");
    const groups = new Map<string, string[]>();
    const lines = input.split(/\r?\n/);
    for (const [index, line] of lines.entries()) {
      const trimmed = line.trim();
      if (trimmed === "" || trimmed.startsWith("#")) continue;
      const colon = trimmed.indexOf(":");
      const group = trimmed.slice(0, colon).trim();
      const members = trimmed
        .slice(colon + 1)
        .split(",")
        .map((member) => member.trim())
        .filter((member) => member !== "");
      if (colon < 0 || !GROUP_NAME.test(group) || !members.every((member) => MEMBER.test(member)))
        return t.failure(
          input,
          context,
          `line ${index + 1}: must be \`group: member, member\` (a group name without spaces, commas or colons; members are user names or principals such as oidc:NAME)`,
        );
      for (const member of members) {
        const principal = /^(?:user|oidc|token):/.test(member) ? member : `user:${member}`;
        groups.set(principal, [...new Set([...(groups.get(principal) ?? []), group])]);
      }
    }
    return t.success(groups);
  },
  (groups) => [...groups].flatMap(([principal, names]) => names.map((group) => `${group}: ${principal}`)).join("\n"),
);
