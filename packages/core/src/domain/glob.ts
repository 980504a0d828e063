const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** A glob (`*` any run of characters, everything else itself) as a regular expression's source, without anchors. */
export const globSource = (glob: string): string => glob.split("*").map(escapeRegExp).join(".*");

/** A glob as a regular expression matching whole strings. */
export const globRegExp = (glob: string, flags = ""): RegExp => new RegExp(`^${globSource(glob)}$`, flags);
