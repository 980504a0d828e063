/** A compiled glob (`*` any run of characters, everything else itself), matching whole strings. */
export interface Glob {
  test(subject: string): boolean;
}

/**
 * Whether `subject` holds the literal `segments` (a glob split at its stars) in order, the first at its start
 * and the last at its end (when the glob has no star, `segments` is the glob alone). Greedy: each middle
 * segment is taken at its leftmost place after the one before, which is always as good as any later place. No
 * backtracking across stars: each segment scans the subject once, so at most `subject.length` times
 * `segment.length` comparisons for each, O(n·m) in all, whatever the stars; `step` is told of each comparison.
 */
export const matchSegments = (segments: readonly string[], subject: string, step: () => void = noStep): boolean => {
  const first = segments[0] ?? "";
  if (segments.length === 1) return subject.length === first.length && equalAt(subject, first, 0, step);
  const last = segments[segments.length - 1] ?? "";
  // The head and the tail are pinned; they may not overlap.
  if (first.length + last.length > subject.length) return false;
  if (!equalAt(subject, first, 0, step) || !equalAt(subject, last, subject.length - last.length, step)) return false;
  let from = first.length;
  const end = subject.length - last.length;
  for (let index = 1; index < segments.length - 1; index += 1) {
    const segment = segments[index] ?? "";
    let at = from;
    while (at + segment.length <= end && !equalAt(subject, segment, at, step)) at += 1;
    if (at + segment.length > end) return false;
    from = at + segment.length;
  }
  return true;
};

const noStep = (): void => {};

/** Whether `segment` is in `subject` at `at`, one comparison (one `step`) per character compared. */
const equalAt = (subject: string, segment: string, at: number, step: () => void): boolean => {
  for (let index = 0; index < segment.length; index += 1) {
    step();
    if (subject.charCodeAt(at + index) !== segment.charCodeAt(index)) return false;
  }
  return true;
};

/**
 * A glob, compiled once: `ignoreCase` matches as aliases are compared (lower case both sides). No regular
 * expression is built from it, so no glob can make a match backtrack (issue 36: 31 stars cost what one does).
 */
export const compileGlob = (glob: string, { ignoreCase = false }: { readonly ignoreCase?: boolean } = {}): Glob => {
  const segments = (ignoreCase ? glob.toLowerCase() : glob).split("*");
  return {
    test: ignoreCase
      ? (subject) => matchSegments(segments, subject.toLowerCase())
      : (subject) => matchSegments(segments, subject),
  };
};

/**
 * Globs compiled into one test, true when any of them matches: each is looked up by its head (the text before its
 * first star), one lookup per distinct head length, then matched, so a subject meets only the globs whose head it
 * starts with (20 grants `r00-*` … `r19-*`: one lookup and one match per alias, not 20). Linear still: a lookup
 * and at most the matching globs' O(n·m) each.
 */
export const compileGlobSet = (
  globs: readonly string[],
  { ignoreCase = false }: { readonly ignoreCase?: boolean } = {},
): Glob => {
  const byHead = new Map<string, (readonly string[])[]>();
  for (const glob of globs) {
    const segments = (ignoreCase ? glob.toLowerCase() : glob).split("*");
    const head = segments[0] ?? "";
    byHead.set(head, [...(byHead.get(head) ?? []), segments]);
  }
  const headLengths = [...new Set([...byHead.keys()].map((head) => head.length))];
  const test = (subject: string): boolean =>
    headLengths.some(
      (length) =>
        length <= subject.length &&
        (byHead.get(subject.slice(0, length))?.some((segments) => matchSegments(segments, subject)) ?? false),
    );
  return { test: ignoreCase ? (subject) => test(subject.toLowerCase()) : test };
};
