import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileGlob, compileGlobSet, matchSegments } from "./glob.js";

// The reference: the definition, by plain recursion over both strings (exponential, so only for short inputs).
const reference = (glob: string, subject: string): boolean => {
  if (glob === "") return subject === "";
  if (glob[0] === "*")
    return reference(glob.slice(1), subject) || (subject !== "" && reference(glob, subject.slice(1)));
  return subject !== "" && glob[0] === subject[0] && reference(glob.slice(1), subject.slice(1));
};

const stepsOf = (glob: string, subject: string): { matched: boolean; steps: number } => {
  let steps = 0;
  const matched = matchSegments(glob.split("*"), subject, () => (steps += 1));
  return { matched, steps };
};

describe("compileGlob", () => {
  it("matches `*` as any run of characters and everything else as itself, whole strings only", () => {
    expect(compileGlob("emea-*").test("emea-paris")).toBe(true);
    expect(compileGlob("emea-*").test("emea-")).toBe(true);
    expect(compileGlob("emea-*").test("apac-emea-1")).toBe(false);
    expect(compileGlob("*.lab").test("x.lab")).toBe(true);
    expect(compileGlob("a.b").test("axb")).toBe(false);
    expect(compileGlob("a+b").test("aab")).toBe(false);
    expect(compileGlob("(a|b)").test("a")).toBe(false);
    expect(compileGlob("*").test("")).toBe(true);
    expect(compileGlob("").test("")).toBe(true);
    expect(compileGlob("ab*ba").test("aba")).toBe(false);
    expect(compileGlob("connection.health.*").test("connection.health.changed")).toBe(true);
  });

  it("ignores case only when asked (aliases), not for event types", () => {
    expect(compileGlob("EMEA-*", { ignoreCase: true }).test("emea-Paris")).toBe(true);
    expect(compileGlob("connection.*").test("Connection.added")).toBe(false);
  });

  it("agrees with the definition on every glob and subject (property)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", "*", ".", "-"), maxLength: 9 });
    const subject = fc.string({ unit: fc.constantFrom("a", "b", ".", "-"), maxLength: 12 });
    fc.assert(
      fc.property(text, subject, (glob, candidate) => compileGlob(glob).test(candidate) === reference(glob, candidate)),
      { numRuns: 5000 },
    );
  });

  // Issue 36: the glob was a regular expression, so `*a*a*a*a*a*a*b` against `x-` and 59 `a` backtracked for 4 s.
  it("costs at most length(subject) × length(glob) comparisons, whatever the stars (counted, not timed)", () => {
    const glob = `${"*a".repeat(31)}*b`;
    const subject = `x-${"a".repeat(4000)}`;
    const { matched, steps } = stepsOf(glob, subject);
    expect(matched).toBe(false);
    expect(steps).toBeLessThanOrEqual(subject.length * glob.length);
    // The regex engine needed C(59, 6) ≈ 45 million tries for 6 stars and 59 characters; this needs a few thousand.
    expect(stepsOf("*a*a*a*a*a*a*b", `x-${"a".repeat(59)}`).steps).toBeLessThan(200);
  });

  it("stays within the bound on adversarial globs and subjects (property)", () => {
    const glob = fc.string({ unit: fc.constantFrom("a", "b", "*"), maxLength: 40 });
    const subject = fc.string({ unit: fc.constantFrom("a", "b"), maxLength: 200 });
    fc.assert(
      fc.property(glob, subject, (pattern, candidate) => {
        const { steps } = stepsOf(pattern, candidate);
        return steps <= Math.max(1, candidate.length) * Math.max(1, pattern.length);
      }),
      { numRuns: 2000 },
    );
  });

  it("compiles a set that matches when any of its globs does (property), ignoring case when asked", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", "*", "-"), maxLength: 6 });
    const subject = fc.string({ unit: fc.constantFrom("a", "b", "-"), maxLength: 10 });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 5 }), subject, (globs, candidate) => {
        return compileGlobSet(globs).test(candidate) === globs.some((glob) => reference(glob, candidate));
      }),
      { numRuns: 3000 },
    );
    expect(compileGlobSet(["R05-*", "lab"], { ignoreCase: true }).test("r05-Site")).toBe(true);
    expect(compileGlobSet([]).test("")).toBe(false);
  });
});
