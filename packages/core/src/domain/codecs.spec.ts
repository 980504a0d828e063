import * as E from "fp-ts/lib/Either.js";
import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ApiKey } from "./api-key.js";
import { AliasCodec, ApiKeyCodec, isUuid, orchestratorUrlPattern, OrchestratorUrlCodec } from "./codecs.js";
import { decodeInput } from "./decode.js";

const problem = (result: E.Either<unknown, unknown>) => (E.isLeft(result) ? JSON.stringify(result.left) : "accepted");

describe("Alias", () => {
  it.each(["a", "Lab", "lab-east_1.prod", "0", "x".repeat(64)])("accepts %j", (alias) => {
    expect(AliasCodec.decode(alias)).toEqual(E.right(alias));
  });

  it.each([
    ["", "must not be empty"],
    ["x".repeat(65), "must be at most 64 characters"],
    ["-lab", "must start with a letter or digit"],
    [".lab", "must start with a letter or digit"],
    ["lab east", "must start with a letter or digit"],
    ["lab/east", "must start with a letter or digit"],
    ["läb", "must start with a letter or digit"],
    ["lab\n", "must start with a letter or digit"],
  ])("refuses %j: %s", (alias, message) => {
    expect(problem(AliasCodec.decode(alias))).toContain(message);
  });

  it("refuses a non-string", () => {
    expect(problem(AliasCodec.decode(42))).toContain("must be a string");
  });

  it("accepts every string made of the allowed characters within the length", () => {
    const head = fc.constantFrom(..."abcXYZ019");
    const tail = fc.array(fc.constantFrom(..."aZ9._-"), { maxLength: 63 });
    fc.assert(fc.property(head, tail, (h, t) => E.isRight(AliasCodec.decode(h + t.join("")))));
  });

  it("refuses every string with a character outside the allowed set", () => {
    const bad = fc.string({ minLength: 1, maxLength: 1 }).filter((c) => !/[A-Za-z0-9._-]/.test(c));
    fc.assert(fc.property(bad, fc.nat(10), (c, n) => E.isLeft(AliasCodec.decode("a".repeat(n) + c))));
  });
});

describe("OrchestratorUrl", () => {
  it.each([
    "https://vco.example.net",
    "https://vco.example.net/",
    "http://10.0.0.1:8080/prefix/",
    "https://[::1]/",
    "https://vco.example.net/a?b=c",
  ])("accepts %j exactly as given", (url) => {
    expect(OrchestratorUrlCodec.decode(url)).toEqual(E.right(url));
  });

  it.each([
    ["", "must not be empty"],
    ["vco.example.net", "must be an absolute URL"],
    ["/relative", "must be an absolute URL"],
    ["ftp://vco.example.net", "must use http or https"],
    ["javascript:alert(1)", "must use http or https"],
    ["https://user:pw@vco.example.net", "must not contain user information"],
    ["https://user@vco.example.net", "must not contain user information"],
    ["https://vco.example.net/#frag", "must not contain a fragment"],
    ["https://vco.example.net/#", "must not contain a fragment"],
    [" https://vco.example.net", "must not contain spaces"],
    ["https://vco.example.net/\t", "must not contain spaces"],
    [`https://vco.example.net/${"a".repeat(2048)}`, "must be at most 2048 characters"],
    // Forms WHATWG parsing quietly repairs: stored as given, they would break the interface's own pattern.
    ["http:127.0.0.1:8080", "must be written as http(s)://host/"],
    ["http:/host/", "must be written as http(s)://host/"],
    ["http:\\\\host\\", "must be written as http(s)://host/"],
    ["https://vco.example.net\\vco", "must be written as http(s)://host/"],
    // Invisible format characters: U+202E would show the URL reversed wherever it is displayed.
    ["https://vco.example.net/\u202Eten.elpmaxe", "must not contain invisible format characters"],
    ["https://vco\u202E.example.net/", "must not contain invisible format characters"],
    ["https://vco.example.net/a\u200Bb", "must not contain invisible format characters"],
    ["https://vco.example.net/?q=\u2066x\u2069", "must not contain invisible format characters"],
    ["\u2060https://vco.example.net/", "must not contain invisible format characters"],
    ["https://vco.example.net/\u0085", "must not contain spaces or control characters"],
  ])("refuses %j: %s", (url, message) => {
    expect(problem(OrchestratorUrlCodec.decode(url))).toContain(message);
  });

  it("accepts every http(s) URL built of host labels, an optional port, a path and a query", () => {
    const label = fc.stringMatching(/^[a-z0-9]{1,12}$/);
    // A numeric last label would make the host an (invalid) IPv4 address, so the top-level label starts with a letter.
    const topLabel = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/);
    const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{0,12}$/);
    const url = fc
      .record({
        scheme: fc.constantFrom("http", "https"),
        host: fc.tuple(fc.array(label, { maxLength: 3 }), topLabel).map(([labels, top]) => [...labels, top]),
        port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        path: fc.array(segment, { maxLength: 5 }),
        query: fc.option(segment, { nil: undefined }),
      })
      .map(
        ({ scheme, host, port, path, query }) =>
          `${scheme}://${host.join(".")}${port === undefined ? "" : `:${port}`}/${path.join("/")}${query === undefined ? "" : `?q=${query}`}`,
      );
    fc.assert(fc.property(url, (u) => E.isRight(OrchestratorUrlCodec.decode(u))));
  });

  it("refuses every format character (category Cf) anywhere, as the interface's pattern does", () => {
    const format = fc
      .integer({ min: 0, max: 0x10ffff })
      .map((code) => String.fromCodePoint(code))
      .filter((c) => /\p{Cf}/u.test(c));
    const base = "https://vco.example.net/path";
    fc.assert(
      fc.property(format, fc.nat(base.length), (c, at) => {
        const url = base.slice(0, at) + c + base.slice(at);
        return E.isLeft(OrchestratorUrlCodec.decode(url)) && !orchestratorUrlPattern().test(url);
      }),
    );
  });

  // The rule asks the Unicode classes only of text outside printable ASCII: what it accepts is still what the
  // interface's pattern allows, whichever characters a URL holds.
  it("accepts only URLs the interface's pattern allows, with any character inserted", () => {
    const character = fc.oneof(
      fc.integer({ min: 0, max: 0x7f }),
      fc.constantFrom(0x85, 0xa0, 0xad, 0x2028, 0x200b, 0x202e, 0xfeff, 0x3000),
      fc.integer({ min: 0x80, max: 0x10ffff }).filter((code) => code < 0xd800 || code > 0xdfff),
    );
    const base = "https://vco.example.net/path?q=1";
    fc.assert(
      fc.property(fc.array(fc.tuple(character, fc.nat(base.length)), { maxLength: 3 }), (inserts) => {
        const url = inserts.reduce(
          (text, [code, at]) => text.slice(0, at) + String.fromCodePoint(code) + text.slice(at),
          base,
        );
        return E.isLeft(OrchestratorUrlCodec.decode(url)) || orchestratorUrlPattern().test(url);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("ApiKey", () => {
  it("accepts any key without control characters up to 8192 characters", () => {
    // What the apiKey rule keeps out (docs/interface.md §2) is kept out of the generated keys too: control and
    // format characters, lone surrogates, line/paragraph separators, U+FFFD, and keys of whitespace only.
    const printable = fc
      .string({ unit: "grapheme", minLength: 1, maxLength: 200 })
      .filter((s) => !/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\uFFFD]/u.test(s) && /\S/.test(s));
    fc.assert(
      fc.property(printable, (key) => {
        const decoded = ApiKeyCodec.decode(key);
        return E.isRight(decoded) && decoded.right.reveal() === key;
      }),
    );
    expect(E.isRight(ApiKeyCodec.decode("k".repeat(8192)))).toBe(true);
    // Any visible text, spaces inside and astral characters included, is kept as given.
    for (const key of ["key with spaces", "ключ-🔑-鍵", " padded "])
      expect(E.isRight(ApiKeyCodec.decode(key))).toBe(true);
  });

  it.each([
    ["", "must not be empty"],
    ["k × 8193", "must be at most 8192 characters"],
    ["key\nwith-newline", "must not contain control characters"],
    ["key\u0000", "must not contain control characters"],
    ["key\u007f", "must not contain control characters"],
    ["key\ud800", "must be valid UTF-8 text"],
    ["\udfffkey", "must be valid UTF-8 text"],
    ["key\ufffd", "must be valid UTF-8 text"],
    ["key\u200b", "must not contain invisible format characters or line separators"],
    ["\u202ekey", "must not contain invisible format characters or line separators"],
    ["key\u2028", "must not contain invisible format characters or line separators"],
    ["\ufeffkey", "must not contain invisible format characters or line separators"],
    [" ", "must not be only whitespace"],
    ["\u00a0\u3000 ", "must not be only whitespace"],
  ])("refuses %j: %s", (key, message) => {
    expect(problem(ApiKeyCodec.decode(key === "k × 8193" ? "k".repeat(8193) : key))).toContain(message);
  });

  it("never puts a refused key in the error it reports", () => {
    const key = `secret-${"x".repeat(9000)}`;
    const error = decodeInput(ApiKeyCodec, "apiKey")(key);
    expect(E.isLeft(error) && JSON.stringify(error.left)).not.toContain("secret-");
  });

  it("prints as [redacted] however it is turned into text", () => {
    const key = ApiKey.unsafeFrom("super-secret");
    const texts = [JSON.stringify({ key }), `${key}`, String(key), inspect({ key }), inspect(key)];
    for (const text of texts) expect(text).not.toContain("super-secret");
    expect(key.reveal()).toBe("super-secret");
  });
});

describe("isUuid", () => {
  it("takes the UUIDs randomUUID writes", () => {
    for (let one = 0; one < 100; one += 1) expect(isUuid(randomUUID())).toBe(true);
  });

  // PostgreSQL's uuid takes the last three as a stored id's: matching them would find ids the other stores do not.
  it.each([
    "not-a-uuid",
    "",
    "0b7e2c4e-8f1a-4c3b-9d2e-5a6f7b8c9d0e ",
    "0B7E2C4E-8F1A-4C3B-9D2E-5A6F7B8C9D0E",
    "{0b7e2c4e-8f1a-4c3b-9d2e-5a6f7b8c9d0e}",
    "0b7e2c4e8f1a4c3b9d2e5a6f7b8c9d0e",
  ])("refuses %j", (id) => {
    expect(isUuid(id)).toBe(false);
  });
});
