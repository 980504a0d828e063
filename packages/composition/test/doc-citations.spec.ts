import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FILES = execFileSync("git", ["ls-files", "packages"], { cwd: ROOT, encoding: "utf8" }).split("\n");
const WILDCARD = /%[sdi]|\$\{[^}]*\}/;

interface Citation {
  readonly line: number;
  readonly file: string;
  readonly name?: string;
}

/**
 * The tests a document cites: each backticked spec file (`x.spec.ts`, `pkg/test/y.int.spec.ts`; a package's README
 * names its own `src/…` and `test/…`), with the quoted test names that follow it in the same table cell; "… contract"
 * points the names after it at core's contract suites.
 */
const citationsOf = (document: string): Citation[] => {
  const home = /^packages\/[^/]+\//.exec(document)?.[0].slice("packages/".length) ?? "";
  return readFileSync(`${ROOT}${document}`, "utf8")
    .split("\n")
    .flatMap((text, index) =>
      text.split(" | ").flatMap((cell) => {
        let file: string | undefined;
        return [...cell.matchAll(/`([^`\s]+)`|"([^"]+)"|\b(contract)\b/g)].flatMap(([, path, name, contract]) => {
          if (path !== undefined) {
            // A pattern (`src/*.spec.ts`, `src/x.spec.ts`) names no file.
            file = /\.spec\.tsx?$/.test(path) && !/[*<]|\bx\.spec/.test(path) ? path : undefined;
            if (file !== undefined && /^(src|test)\//.test(file) && filesCited(`${home}${file}`).length > 0)
              file = `${home}${file}`;
            return file === undefined ? [] : [{ line: index + 1, file }];
          }
          if (contract !== undefined) file = "core/contract/";
          return name !== undefined && file !== undefined ? [{ line: index + 1, file, name }] : [];
        });
      }),
    );
};

const filesCited = (cited: string): string[] => {
  const path = cited.replace(/^packages\//, "");
  return path.endsWith("/")
    ? FILES.filter((file) => file.startsWith(`packages/${path}`) && file.endsWith(".ts"))
    : FILES.filter((file) => file === `packages/${path}` || file.endsWith(`/${path}`));
};

/** The string literals of a spec, whitespace collapsed, its numeric constants put in place (`${TRIALS}` → 12). */
const titlesOf = (file: string): string[] => {
  const source = readFileSync(`${ROOT}${file}`, "utf8");
  const constants = new Map(
    [...source.matchAll(/const (\w+) = ([\d_]+);/g)].map(([, key = "", value = ""]) => [key, value.replace(/_/g, "")]),
  );
  return [...source.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`]*)`/g)].map(([, a, b, c]) =>
    (a ?? b ?? c ?? "").replace(/\$\{(\w+)\}/g, (all, key: string) => constants.get(key) ?? all).replace(/\s+/g, " "),
  );
};

/** Whether a cited name ("…" standing for left-out words) is part of a title, whose `%s` or `${x}` stand for a few words. */
const citedIn = (name: string, title: string): boolean => {
  const pieces = title.split(WILDCARD);
  return name
    .split(/…|\.\.\./)
    .map((part) => part.trim())
    .every((part) => part === "" || startsInPiece(part, pieces));
};

const startsInPiece = (text: string, pieces: readonly string[]): boolean =>
  pieces.some((piece, i) =>
    [...piece].some((_, at) => {
      const tail = piece.slice(at);
      return (
        tail.startsWith(text) ||
        (text.startsWith(tail) && i + 1 < pieces.length && afterWildcard(text.slice(tail.length), pieces, i + 1))
      );
    }),
  );

/** A wildcard's value: at most 40 characters, then the next piece (or the text ends inside it). */
const afterWildcard = (text: string, pieces: readonly string[], next: number): boolean => {
  const piece = pieces[next] ?? "";
  for (let skip = 0; skip <= Math.min(40, text.length); skip++) {
    const rest = text.slice(skip);
    if (rest === "" || piece.startsWith(rest)) return true;
    if (rest.startsWith(piece) && next + 1 < pieces.length && afterWildcard(rest.slice(piece.length), pieces, next + 1))
      return true;
  }
  return false;
};

const DOCUMENTS = FILES.filter((file) => /^packages\/[^/]+\/README\.md$/.test(file)).concat(
  readdirSync(`${ROOT}docs`)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  "README.md",
);

it("docs/reliability.md cites tests by name", () => {
  expect(citationsOf("docs/reliability.md").filter(({ name }) => name !== undefined).length).toBeGreaterThan(100);
});

describe.each(DOCUMENTS)("%s's citations of tests", (document) => {
  const citations = citationsOf(document);

  it("names spec files that exist", () => {
    expect(
      citations.filter(({ file }) => filesCited(file).length === 0).map(({ line, file }) => `line ${line}: ${file}`),
    ).toEqual([]);
  });

  it("names tests those files have", () => {
    expect(
      citations
        .filter(({ file, name }) => {
          if (name === undefined) return false;
          const titles = filesCited(file).flatMap(titlesOf);
          const cited = (part: string) => titles.some((title) => citedIn(part.replace(/\s+/g, " "), title));
          // "describe: it" names a test by its group and its own title.
          const [group, ...own] = name.split(": ");
          return !(cited(name) || (own.length > 0 && cited(group ?? "") && cited(own.join(": "))));
        })
        .map(({ line, file, name }) => `line ${line}: ${file} "${name}"`),
    ).toEqual([]);
  });
});

describe("docs/interface.md's own sections", () => {
  const text = readFileSync(`${ROOT}docs/interface.md`, "utf8");
  const sections = new Set([...text.matchAll(/^## (\d+)\. /gm)].map(([, number]) => number));

  it("are what a bare § names in it (SPEC § and RFC § name other documents)", () => {
    const named = [...text.matchAll(/(SPEC |RFC \d+ )?§(\d+)/g)].filter(([, other]) => other === undefined);
    expect(named.length).toBeGreaterThan(20);
    expect(named.map(([, , number]) => `§${number}`).filter((section) => !sections.has(section.slice(1)))).toEqual([]);
  });
});

describe('"docs/interface.md §N, "Title"" in every document', () => {
  const text = readFileSync(`${ROOT}docs/interface.md`, "utf8");
  /** Each numbered section's own headings. */
  const headings = new Map(
    text
      .split(/^## /m)
      .slice(1)
      .map((part) => [
        /^(\d+)\./.exec(part)?.[1] ?? "",
        [...part.matchAll(/^###+ (.*)$/gm)].map(([, title]) => title ?? ""),
      ]),
  );

  it("are found (README's and the CLI's among them)", () => {
    const all = DOCUMENTS.flatMap((document) => [
      ...readFileSync(`${ROOT}${document}`, "utf8").matchAll(/interface\.md\)? §(\d+),?\s+"([^"]+)"/g),
    ]);
    expect(all.length).toBeGreaterThan(4);
  });

  it.each(DOCUMENTS)("%s: the title is a heading of that section", (document) => {
    const cited = [...readFileSync(`${ROOT}${document}`, "utf8").matchAll(/interface\.md\)? §(\d+),?\s+"([^"]+)"/g)];
    expect(
      cited
        .filter(
          ([, section, title]) =>
            !(headings.get(section ?? "") ?? []).some((heading) => heading.startsWith(title ?? "")),
        )
        .map(([match]) => match),
    ).toEqual([]);
  });
});
