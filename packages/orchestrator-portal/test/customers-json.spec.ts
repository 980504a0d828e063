import { generateDataset } from "@sdwan-connections/orchestrator-simulator";
import fc from "fast-check";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { describe, expect, it, vi } from "vitest";
import type { CustomerList } from "@sdwan-connections/core";
import {
  readCustomersByEnterprise,
  readCustomersJson,
  scanCustomersJson,
  type CustomersBound,
} from "../src/customers-json/scanner.js";
import { DEFAULT_CUSTOMERS_BOUND } from "../src/index.js";
import { decodeCustomers, PARSE_LIMIT_BYTES } from "../src/wire.js";

const encoder = new TextEncoder();

/** The property runs parse thousands of answers: CPU-bound seconds on a loaded two-core CI machine, past vitest's 5 s default. */
const PROPERTY_RUN_TIMEOUT_MS = 60_000;

/** The fast path within the default bound, which these answers never reach. */
const read = (bytes: Uint8Array, bound: CustomersBound = DEFAULT_CUSTOMERS_BOUND): O.Option<CustomerList> => {
  const within = readCustomersJson(bytes, bound);
  if (E.isLeft(within)) throw new Error(`over the bound: ${within.left}`);
  return within.right;
};

/** The general path on the same bytes, as the client took it before the fast one: text, JSON.parse, io-ts, toCustomer, JSON. */
const generalPath = (bytes: Uint8Array): E.Either<string, Uint8Array> => {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return E.left("not JSON");
  }
  return E.map((customers: unknown) => encoder.encode(JSON.stringify(customers)))(decodeCustomers(body));
};

/**
 * The general path's promise: read one enterprise at a time, it answers what the whole answer's `JSON.parse` and
 * io-ts answered (the same bytes, the same reason), and none where that was not a JSON array.
 */
const expectByEnterprise = (bytes: Uint8Array): void => {
  // The JSON as text: vitest compares long byte arrays slowly.
  const text = (json: Uint8Array) => Buffer.from(json).toString("latin1");
  const whole = generalPath(bytes);
  const expected = E.isRight(whole)
    ? E.right(O.some(text(whole.right)))
    : ["not JSON", "the answer is not an array"].includes(whole.left)
      ? E.right(O.none)
      : E.left({ invalid: whole.left });
  const byEnterprise = E.map(O.map((list: CustomerList) => text(list.json)))(
    readCustomersByEnterprise(bytes, DEFAULT_CUSTOMERS_BOUND),
  );
  expect(byEnterprise, new TextDecoder().decode(bytes).slice(0, 300)).toEqual(expected);
};

/** The fast path's promise: when it answers, the general path accepts the same bytes and writes the same JSON. */
const expectAgreement = (bytes: Uint8Array): boolean => {
  expectByEnterprise(bytes);
  const fast = read(bytes);
  if (O.isNone(fast)) return false;
  const general = generalPath(bytes);
  expect(E.isRight(general), new TextDecoder().decode(bytes).slice(0, 300)).toBe(true);
  if (E.isRight(general)) expect(Buffer.from(fast.value.json).equals(Buffer.from(general.right))).toBe(true);
  expect(fast.value.items).toEqual(JSON.parse(new TextDecoder().decode(fast.value.json)));
  // Both paths measure the same bytes against the bound.
  const { length } = fast.value.json;
  for (const readPath of [readCustomersJson, readCustomersByEnterprise])
    expect(
      [length, length - 1].map((replyBytes) => E.isRight(readPath(bytes, { ...DEFAULT_CUSTOMERS_BOUND, replyBytes }))),
    ).toEqual([true, false]);
  return true;
};

const enterprisesOf = (seed: number, nullShare: number): unknown[] =>
  generateDataset({ partners: 1, enterprisesPerPartner: 300, seed, nullShare }).partners[0]?.enterprises ?? [];

/**
 * Enterprises whose keys repeat, or nearly (the same first four bytes, another end; a short, a long, a non-ASCII key;
 * white space; an escaped key spelling a met one; a met key with a value of the wrong type): the met keys' path.
 */
const LONG_KEY = "k".repeat(70);
const MET_KEYS = [
  `{"id":1,"logicalId":"a","name":"n","nameX":1,"namX":2,"a":3,"${LONG_KEY}":4,"été":5,"city":"c"}`,
  `{"id":2,"logicalId":"b","nameX":"x","name":"n2","namX":[],"a":{},"${LONG_KEY}":"l","été":6,"cityX":1,"city":"d"}`,
  `{"id":3,"logicalId":"c","name": "spaced value","city" :"spaced colon","name":"last wins","nam":"short"}`,
  `{"id":4,"logicalId":"d","na\\u006de":"escaped after it was met"}`,
  `{"id":5,"logicalId":"e","name":1}`,
  `{"id":6,"logicalId":"f","nameX":"x","name":"n6"}`,
] as const;
const metKeysAnswer = (...enterprises: string[]) => encoder.encode(`[${enterprises.join(",")}]`);

describe("the customers JSON written from the answer's bytes", () => {
  it.each([
    [1, 0],
    [2, 0.25],
    [3, 1],
  ])(
    "takes the simulator's answers (seed %i, null share %f) and writes what the general path writes",
    (seed, nullShare) => {
      const enterprises = enterprisesOf(seed, nullShare);
      expect(expectAgreement(encoder.encode(JSON.stringify(enterprises)))).toBe(true);
      // Pretty-printed, as some servers send it.
      expect(expectAgreement(encoder.encode(JSON.stringify(enterprises, null, 2)))).toBe(true);
    },
  );

  it("reads an empty list, and counts what it wrote", () => {
    expect(expectAgreement(encoder.encode(" [ ] "))).toBe(true);
    const list = read(encoder.encode(JSON.stringify(enterprisesOf(4, 0.25))));
    expect(O.isSome(list) && list.value.count).toBe(300);
  });

  it("writes escaped strings, non-ASCII text and bytes that are not UTF-8 as the general path does", () => {
    const base = { id: 7, logicalId: "c0ffee" };
    const answers = [
      `[{"id":7,"logicalId":"c0ffee","name":"Caf\\u00e9 \\"Z\\" \\/ \\\\ \\n \\ud83d\\ude00 \\ud800","city":"Zürich","state":"東京都"}]`,
      JSON.stringify([{ ...base, description: "\u2028 line separator, tab\t" }]),
    ].map((text) => encoder.encode(text));
    // A lone continuation byte, a cut-short sequence, an overlong slash, an encoded surrogate: each becomes U+FFFD as in text().
    for (const bad of [[0x80], [0xe6, 0x9d], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      answers.push(
        Uint8Array.from([...encoder.encode('[{"id":1,"logicalId":"x","name":"a'), ...bad, ...encoder.encode('b"}]')]),
      );
    }
    for (const answer of answers) expect(expectAgreement(answer)).toBe(true);
  });

  it("numbers: as JSON.parse reads them, and integers only when written as JSON.stringify writes them", () => {
    const agree = (lat: string, id = "1", flag = "1") =>
      expectAgreement(
        encoder.encode(
          `[{"id":${id},"logicalId":"x","lat":${lat},"lon":${lat.startsWith("-") ? lat.slice(1) : `-${lat}`},"alertsEnabled":${flag},"networkId":${id}}]`,
        ),
      );
    for (const lat of [
      "0",
      "-0",
      "45.4642",
      "1e-7",
      "0.0000005",
      "-0.0000005",
      "123.4567891",
      "1E3",
      "1e400",
      "12345678901234567890",
    ])
      expect(agree(lat), lat).toBe(true);
    for (const flag of ["0", "1", "true", "false", "null", "1.0", "-0"]) expect(agree("1", "1", flag), flag).toBe(true);
    // Integers written otherwise are left to the general path (which takes them).
    for (const id of ["1.0", "-0", "1e2", "1234567890123456"]) expect(agree("1", id), id).toBe(false);
  });

  it("passes unread fields nested at any depth (100,000 levels: no recursion) and writes what the general path writes", () => {
    for (const depth of [100, 100_000]) {
      const nested = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      expect(
        expectAgreement(
          encoder.encode(`[{"id":1,"extra":{"a":${nested},"b":[{}, {"c":[1,{"d":"e"}]}]},"logicalId":"x"}]`),
        ),
        `${depth}`,
      ).toBe(true);
    }
    // Still checked as JSON: a container closed by the other bracket, a member without its key.
    for (const broken of ['[{"id":1,"logicalId":"x","extra":[[{]]}]', '[{"id":1,"logicalId":"x","extra":{"a":1,2}}]'])
      expect(O.isNone(read(encoder.encode(broken))), broken).toBe(true);
  });

  it("knows a key met before by its bytes, and every other key as before (its first word the same, white space, escapes)", () => {
    const [first, second, third, escaped, mistyped, sixth] = MET_KEYS;
    expect(expectAgreement(metKeysAnswer(first, second, third, sixth))).toBe(true);
    // An escaped key, or a met key with a value of the wrong type, still leaves the answer to the general path.
    for (const unusual of [escaped, mistyped])
      expect(expectAgreement(metKeysAnswer(first, second, unusual))).toBe(false);
    // More keys than an answer's reading keeps: the rest read as before.
    const many = Array.from({ length: 200 }, (_, i) => `"key${i}":${i}`).join(",");
    expect(
      expectAgreement(metKeysAnswer(`{"id":1,"logicalId":"a",${many}}`, `{${many},"id":2,"logicalId":"b","name":"n"}`)),
    ).toBe(true);
  });

  it("leaves every answer that is not the usual form to the general path", () => {
    const usual = JSON.stringify(enterprisesOf(5, 0.25).slice(0, 3));
    const unusual = [
      "",
      "{}",
      '{"error":{"code":1,"message":"no"}}',
      "[1]",
      "[null]",
      "[{}]",
      "\uFEFF" + usual,
      usual + " x",
      usual.slice(0, -1),
      usual.replace("[", "[,"),
      usual.replace(/}]$/, "},]"),
      '[{"id":1,"logicalId":"x","name":1}]',
      '[{"id":1.5,"logicalId":"x"}]',
      '[{"id":1,"logicalId":null}]',
      '[{"id":1,"logicalId":"x","alertsEnabled":2}]',
      '[{"id":1,"logicalId":"x","lat":"45"}]',
      '[{"id":1,"logic\\u0061lId":"x"}]',
      '[{"id":1,"logicalId":"x","name":"a\nb"}]',
      '[{"id":01,"logicalId":"x"}]',
      '[{"id":1,"logicalId":"x","extra":tru}]',
      '[{"id":1,"logicalId":"x","extra":"\\x"}]',
    ];
    for (const text of unusual) expect(O.isNone(read(encoder.encode(text))), text.slice(0, 80)).toBe(true);
  });

  it(
    "never disagrees with the general path on any cut or changed byte of an answer",
    () => {
      const answer = encoder.encode(JSON.stringify(enterprisesOf(6, 0.5).slice(0, 2)));
      for (let cut = 0; cut < answer.length; cut += 1) expectAgreement(answer.subarray(0, cut));
      fc.assert(
        fc.property(fc.nat(answer.length - 1), fc.integer({ min: 0, max: 255 }), (at, byte) => {
          const changed = Uint8Array.from(answer);
          changed[at] = byte;
          expectAgreement(changed);
        }),
        { numRuns: 3000 },
      );
    },
    PROPERTY_RUN_TIMEOUT_MS,
  );

  it(
    "never disagrees with the general path on generated enterprises, fields of every type included",
    () => {
      const anyValue = fc.oneof(
        fc.string(),
        fc.string({ unit: "grapheme" }),
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constantFrom(0, 1, -0),
        fc.jsonValue(),
      );
      const enterprise = fc.record(
        {
          id: fc.oneof(fc.integer(), fc.maxSafeInteger(), anyValue),
          logicalId: fc.oneof(fc.string({ unit: "grapheme" }), anyValue),
          name: fc.oneof(fc.string({ unit: "grapheme" }), fc.constant(null), anyValue),
          alertsEnabled: fc.oneof(fc.constantFrom(0, 1, true, false, null), anyValue),
          lat: fc.oneof(fc.double({ noNaN: true }), fc.constant(null), anyValue),
          networkId: fc.oneof(fc.integer(), fc.constant(null), anyValue),
          extra: fc.jsonValue(),
        },
        { requiredKeys: [] },
      );
      let fast = 0;
      fc.assert(
        fc.property(
          fc.array(enterprise, { maxLength: 4 }),
          fc.constantFrom(undefined, 1, "\t"),
          (enterprises, indent) => {
            if (expectAgreement(encoder.encode(JSON.stringify(enterprises, null, indent)))) fast += 1;
          },
        ),
        { numRuns: 3000 },
      );
      // Both kinds of cases were met: answers the fast path took, and answers it left.
      expect(fast).toBeGreaterThan(50);
    },
    PROPERTY_RUN_TIMEOUT_MS,
  );
});

describe("the customers JSON of long rewritten strings", () => {
  it("has room for strings that grow when written again (each byte that is not UTF-8 becomes three)", () => {
    const bad = Array.from({ length: 5000 }, () => 0xff);
    const field = (name: string) => [...encoder.encode(`"${name}":"`), ...bad, ...encoder.encode('"')];
    const enterprise = [
      ...encoder.encode('{"id":1,"logicalId":"x",'),
      ...field("name"),
      0x2c,
      ...field("city"),
      0x2c,
      ...field("description"),
      ...encoder.encode("}"),
    ];
    const answer = Uint8Array.from([0x5b, ...enterprise, 0x2c, ...enterprise, 0x5d]);
    expect(expectAgreement(answer)).toBe(true);
  });
});

describe("the customers bound (issue 27: 16 MiB of minimal enterprises made a 204 MiB reply)", () => {
  const minimal = (count: number, extra: Record<string, unknown> = {}) =>
    encoder.encode(JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: i, logicalId: `e${i}`, ...extra }))));
  const unbounded = { enterprises: 1_000_000, replyBytes: 2 ** 30 };

  it("takes an answer of exactly the bound's enterprises, and refuses one more", () => {
    const bound = { ...unbounded, enterprises: 100 };
    expect(O.isSome(read(minimal(100), bound))).toBe(true);
    expect(readCustomersJson(minimal(101), bound)).toEqual(E.left("enterprises"));
  });

  it("counts on past an enterprise that is not of the usual form, so the general path never parses an answer over the bound", () => {
    const bound = { ...unbounded, enterprises: 100 };
    // An escaped key: not the usual form, but JSON.
    const escapedKey = (count: number) =>
      encoder.encode(`[{"id":0,"logicalId":"x","\\u0061":1},${new TextDecoder().decode(minimal(count - 1)).slice(1)}`);
    expect(read(escapedKey(100), bound)).toEqual(O.none);
    expect(readCustomersJson(escapedKey(101), bound)).toEqual(E.left("enterprises"));
  });

  it("counts on past an enterprise nested 10,000 levels deep, of the usual form or not: the fast path refuses the answer itself", () => {
    const bound = { ...unbounded, enterprises: 100 };
    const nested = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const rest = new TextDecoder().decode(minimal(100)).slice(1);
    for (const first of [`{"id":0,"logicalId":"x","extra":${nested}}`, `{"id":0,"logicalId":"x","\\u0061":${nested}}`])
      expect(readCustomersJson(encoder.encode(`[${first},${rest}`), bound), first.slice(0, 40)).toEqual(
        E.left("enterprises"),
      );
  });

  it("stops reading at the enterprise one past the bound, whatever follows it", () => {
    const over = new TextDecoder().decode(minimal(3)).replace(/]$/, ',{"id":3, this is not JSON');
    expect(readCustomersJson(encoder.encode(over), { ...unbounded, enterprises: 3 })).toEqual(E.left("enterprises"));
  });

  it("takes customers whose JSON is exactly the bound's bytes, and refuses one byte less", () => {
    const answer = minimal(50, { description: "é".repeat(40) });
    const json = read(answer, unbounded);
    const length = O.isSome(json) ? json.value.json.length : 0;
    expect(O.isSome(read(answer, { ...unbounded, replyBytes: length }))).toBe(true);
    expect(readCustomersJson(answer, { ...unbounded, replyBytes: length - 1 })).toEqual(E.left("replyBytes"));
    // An empty list is "[]".
    expect(O.isSome(read(encoder.encode("[]"), { ...unbounded, replyBytes: 2 }))).toBe(true);
  });

  it("the general path: exactly the bound's enterprises and bytes, one more of either refused, however unusual the enterprises", () => {
    const answer = encoder.encode(
      `[{"id":0,"logicalId":"x","\u0061":1},${new TextDecoder().decode(minimal(49, { description: "é".repeat(40) })).slice(1)}`,
    );
    const list = readCustomersByEnterprise(answer, unbounded);
    const length = E.isRight(list) && O.isSome(list.right) ? list.right.value.json.length : 0;
    expect(E.isRight(readCustomersByEnterprise(answer, { enterprises: 50, replyBytes: length }))).toBe(true);
    expect(readCustomersByEnterprise(answer, { enterprises: 49, replyBytes: length })).toEqual(E.left("enterprises"));
    expect(readCustomersByEnterprise(answer, { enterprises: 50, replyBytes: length - 1 })).toEqual(
      E.left("replyBytes"),
    );
  });
});

describe("one enterprise at a time (issue 27: JSON.parse of a whole answer of [[],[],…] took 23 times its size)", () => {
  const large = (key: string) =>
    encoder.encode(
      `[{"id":1,"logicalId":"x"},{"id":2,"logicalId":"y","${key}":[${"[],".repeat(PARSE_LIMIT_BYTES / 3)}[]]},{"id":3,"logicalId":"z"}]`,
    );

  it("refuses an enterprise larger than the parse limit, of the usual form or not, naming it and the limit", () => {
    for (const key of ["unread", "\u0061"]) {
      expect(read(large(key)), key).toEqual(O.none);
      expect(readCustomersByEnterprise(large(key), DEFAULT_CUSTOMERS_BOUND), key).toEqual(
        E.left({ invalid: "enterprise [1] is larger than 1 MiB" }),
      );
    }
  });

  it("parses each enterprise alone: a byte order mark, unusual enterprises beside usual ones, a bad one named after a good one", () => {
    const usual = JSON.stringify(enterprisesOf(7, 0.25).slice(0, 3));
    for (const text of [
      "﻿" + usual,
      `[{"id":1,"logic\u0061lId":"x"},${usual.slice(1)}`,
      `[${usual.slice(1, -1)},{"id":1.5,"logicalId":"x"},{"id":"bad"}]`,
      "[1]",
      "[]",
    ])
      expectByEnterprise(encoder.encode(text));
    expect(
      readCustomersByEnterprise(
        encoder.encode(`[${usual.slice(1, -1)},{"id":1.5,"logicalId":"x"}]`),
        DEFAULT_CUSTOMERS_BOUND,
      ),
    ).toEqual(E.left({ invalid: "enterprise [3] has a missing or invalid id" }));
  });
});

describe("read as the answer arrives (issue 40: the scan overlaps the transfer)", () => {
  /** `readCustomersJson`'s answer, its JSON as text (vitest compares long byte arrays slowly). */
  const comparable = (read: E.Either<unknown, O.Option<CustomerList>>) =>
    E.map(O.map((list: CustomerList) => [list.count, Buffer.from(list.json).toString("latin1")]))(read);
  /** The answer read in pieces (each `more` given every byte so far, in one buffer, as the transport gives them). */
  const inPieces = (bytes: Uint8Array, cuts: readonly number[], bound: CustomersBound) => {
    const scan = scanCustomersJson(bound, bytes.length);
    for (const cut of [...cuts].sort((a, b) => a - b)) scan.more(bytes.subarray(0, cut));
    return scan.end(bytes);
  };
  const expectSameInPieces = (bytes: Uint8Array, cuts: readonly number[], bound = DEFAULT_CUSTOMERS_BOUND) =>
    expect(comparable(inPieces(bytes, cuts, bound)), new TextDecoder().decode(bytes).slice(0, 120)).toEqual(
      comparable(readCustomersJson(bytes, bound)),
    );
  const usual = encoder.encode(JSON.stringify(enterprisesOf(8, 0.25).slice(0, 20)));

  it("reads a met key cut short at a piece's end as the whole answer's reading does", () => {
    const [first, second, third, , , sixth] = MET_KEYS;
    const answer = metKeysAnswer(first, second, third, sixth);
    for (let cut = 0; cut <= answer.length; cut += 1) expectSameInPieces(answer, [cut]);
  });

  it("reads the enterprises each piece completes, before the last byte", () => {
    const scan = scanCustomersJson(DEFAULT_CUSTOMERS_BOUND);
    const half = usual.subarray(0, usual.length >> 1);
    expect(scan.more(half)).toBeGreaterThan(5);
    expect(scan.more(half)).toBeLessThan(20);
    expect(scan.more(usual.subarray(0, usual.length - 1))).toBe(20);
    expectSameInPieces(usual, [usual.length >> 1, usual.length - 1]);
  });

  it("never begins an enterprise whose last byte has not come: each is read once", () => {
    // A number JSON.stringify would not write as it is (1.50) is read as text from the answer: counted per reading.
    const answer = encoder.encode(
      `[{"id":1,"logicalId":"a","score":1.50,"name":"one"},{"id":2,"logicalId":"b","score":2.50,"name":"two"}]`,
    );
    const numbersRead = (cuts: readonly number[]): number => {
      const toString = vi.spyOn(Buffer.prototype, "toString");
      try {
        const scan = scanCustomersJson(DEFAULT_CUSTOMERS_BOUND, answer.length);
        for (const cut of cuts) scan.more(answer.subarray(0, cut));
        expect(E.isRight(scan.end(answer))).toBe(true);
        return toString.mock.contexts.filter((view) => (view as Buffer).buffer === answer.buffer).length;
      } finally {
        toString.mockRestore();
      }
    };
    // Cut within the second enterprise, past its number: the old code read it there, then again (3).
    const cut = new TextDecoder().decode(answer).indexOf('"two"');
    expect(numbersRead([])).toBe(2);
    expect(numbersRead([cut])).toBe(2);
    expectSameInPieces(answer, [cut]);
  });

  it(
    "answers exactly what the whole answer's reading answers, cut anywhere, in any pieces",
    () => {
      // Every single cut (of a shorter answer), and one byte at a time.
      const short = encoder.encode(JSON.stringify(enterprisesOf(8, 0.25).slice(0, 4)));
      for (let cut = 0; cut <= short.length; cut += 1) expectSameInPieces(short, [cut]);
      expectSameInPieces(
        usual,
        Array.from({ length: usual.length }, (_, i) => i),
      );
      const answers = [
        usual,
        encoder.encode(JSON.stringify(enterprisesOf(9, 1).slice(0, 5), null, 2)),
        encoder.encode(`[{"id":1,"logicalId":"x"},{"id":2,"logic\u0061lId":"y"},{"id":3,"logicalId":"z"}]`),
        encoder.encode(`[{"id":1,"logicalId":"x"},{"id":2,"logicalId":"y"}] x`),
        encoder.encode(`[{"id":1,"logicalId":"x"},{"id":2}]`),
        encoder.encode(" [ ] "),
        encoder.encode("{}"),
      ];
      fc.assert(
        fc.property(
          fc.constantFrom(...answers),
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
          fc.nat(255),
          fc.double({ min: 0, max: 1, noNaN: true }),
          (answer, shares, byte, at) => {
            const cuts = shares.map((share) => Math.floor(share * answer.length));
            expectSameInPieces(answer, cuts);
            const changed = Uint8Array.from(answer);
            changed[Math.floor(at * (answer.length - 1))] = byte;
            expectSameInPieces(changed, cuts);
          },
        ),
        { numRuns: 150 },
      );
      // An enterprise larger than the parse limit: never read in pieces past it.
      const large = encoder.encode(
        `[{"id":1,"logicalId":"x"},{"id":2,"logicalId":"y","extra":[${"[],".repeat(PARSE_LIMIT_BYTES / 3)}[]]}]`,
      );
      expectSameInPieces(
        large,
        Array.from({ length: 64 }, (_, i) => i * (large.length >> 6)),
      );
    },
    PROPERTY_RUN_TIMEOUT_MS,
  );

  it("holds to the bound as the whole answer's reading does, whichever piece crosses it", () => {
    const whole = readCustomersJson(usual, DEFAULT_CUSTOMERS_BOUND);
    const length = E.isRight(whole) && O.isSome(whole.right) ? whole.right.value.json.length : 0;
    for (const bound of [
      { enterprises: 20, replyBytes: length },
      { enterprises: 19, replyBytes: length },
      { enterprises: 20, replyBytes: length - 1 },
      { enterprises: 3, replyBytes: length },
      { enterprises: 20, replyBytes: 300 },
    ])
      for (let cut = 0; cut <= usual.length; cut += 97) expectSameInPieces(usual, [cut, cut + 500], bound);
  });
});

describe("coordinates rounded from their digits (issue 40: the double was read from text for each of them)", () => {
  it("writes what round6 of the double writes, near a half of a millionth too, for any digits", () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((list) => list.join(""));
    // The 7th to 12th digits near a half: where the digits alone could round otherwise than the double.
    const nearHalf = fc.constantFrom("499998", "499999", "500000", "500001", "4999995", "5000005", "");
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.oneof(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 1000, max: 10 ** 9 })),
        digits(0, 6),
        nearHalf,
        digits(0, 12),
        (negative, integer, first, half, rest) => {
          const fraction = `${first}${first.length === 6 ? half : ""}${rest}`;
          const lat = `${negative ? "-" : ""}${integer}${fraction === "" ? "" : `.${fraction}`}`;
          const answer = encoder.encode(`[{"id":1,"logicalId":"x","lat":${lat},"lon":1.0000005}]`);
          expect(expectAgreement(answer), lat).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
