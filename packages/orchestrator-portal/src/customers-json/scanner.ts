import { isUtf8 } from "node:buffer";
import { customerListOfJson, type CustomerList } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { CUSTOMER_MAPPING, decodeCustomer, PARSE_LIMIT_BYTES, round6, type Conversion } from "../wire.js";

/**
 * How large a partner's customers may be (docs/interface.md §6): an answer beyond it is refused as garbage, so
 * that one answer cannot take the service past its memory (each minimal enterprise of about 24 bytes is a
 * customer of about 305).
 */
export interface CustomersBound {
  /** The most enterprises an answer may list (`SDWAN_CUSTOMERS_MAX_ENTERPRISES`). */
  readonly enterprises: number;
  /** The most bytes the customers' JSON may take (`SDWAN_CUSTOMERS_MAX_REPLY_BYTES`). */
  readonly replyBytes: number;
}

/** Why a reading refuses an answer: over one of the bound's limits, or not a list of enterprises (its first one that is not, and why). */
export type Refusal = keyof CustomersBound | { readonly invalid: string };

/**
 * The cold path of a getEnterpriseProxyEnterprises answer: from the orchestrator's bytes straight to the
 * customers' JSON, in one pass, with no text of the whole answer, no `JSON.parse` tree and no values for
 * fields the mapping does not read. A plain string is copied as it is (its bytes are already the JSON
 * `JSON.stringify` would write for it); a string with escapes or bytes that are not UTF-8 is decoded and
 * written again as the general path would.
 *
 * It takes the usual form only: strictly valid JSON, an array of objects of at most `PARSE_LIMIT_BYTES` whose
 * keys have no escapes and whose mapped fields have their documented types (wire.ts's `Enterprise`). Anything
 * else answers none, and the caller takes the general path (`readCustomersByEnterprise`), which decides and
 * explains. So this path never accepts what that one would refuse, and writes exactly the bytes
 * `JSON.stringify` writes for that path's customers (test/customers-json.spec.ts checks both, on generated and on
 * broken answers).
 *
 * It holds to `bound` as it goes: the answer is over it (left) as soon as its enterprise one past the bound
 * begins or the JSON written passes the bytes bound, and nothing more is read or written. An enterprise that
 * is not of the usual form stops the writing but not the counting (each further one is only passed, as
 * JSON, however deeply it nests), so every answer over the enterprises bound is refused before the general
 * path parses it.
 */
export const readCustomersJson = (
  bytes: Uint8Array,
  bound: CustomersBound,
): E.Either<Refusal, O.Option<CustomerList>> => scanCustomersJson(bound, bytes.length).end(bytes);

/**
 * `readCustomersJson` of an answer as it arrives: `more` after each piece, with every byte so far (the same bytes at
 * the same places each time), answering how many enterprises it has read; then `end` with them all.
 */
export interface CustomersScan {
  readonly more: (prefix: Uint8Array) => number;
  readonly end: (bytes: Uint8Array) => E.Either<Refusal, O.Option<CustomerList>>;
}

/**
 * `readCustomersJson`, its reading begun while the answer arrives (`expectedBytes`: its length, if known): `end`
 * answers exactly what `readCustomersJson` answers for the same bytes.
 */
export const scanCustomersJson = (bound: CustomersBound, expectedBytes = 0): CustomersScan => {
  const { more, end } = transform(bound, false, expectedBytes);
  return { more, end: (bytes) => settle(() => end(bytes)) };
};

/**
 * The general path of a getEnterpriseProxyEnterprises answer, the authority on what it means: each enterprise
 * parsed alone (`JSON.parse` of its bytes, at most `PARSE_LIMIT_BYTES`), decoded by io-ts (wire.ts's
 * `decodeCustomer`, whose reason names the first bad one), mapped and written, so no answer is ever parsed
 * whole. The answer is JSON as `JSON.parse` reads a UTF-8 text (a leading byte order mark dropped); an answer
 * that is not a JSON array answers none (the caller parses it whole, if it is small). Held to `bound` as
 * `readCustomersJson` is.
 */
export const readCustomersByEnterprise = (
  bytes: Uint8Array,
  bound: CustomersBound,
): E.Either<Refusal, O.Option<CustomerList>> => settle(() => transform(bound, true, bytes.length).end(bytes));

const settle = (
  transformed: () => { readonly json: Uint8Array; readonly count: number } | string | undefined,
): E.Either<Refusal, O.Option<CustomerList>> => {
  try {
    const done = transformed();
    if (typeof done === "string") return E.left({ invalid: done });
    return E.right(done === undefined ? O.none : O.some(customerListOfJson(done.json, done.count)));
  } catch (error) {
    if (error === NOT_USUAL) return E.right(O.none);
    if (error === OVER_ENTERPRISES) return E.left("enterprises");
    if (error === OVER_REPLY_BYTES) return E.left("replyBytes");
    throw error;
  }
};

/** One row of CUSTOMER_MAPPING, as the transform reads and writes it. */
interface Field {
  /** The row's place: where each enterprise's value of it is noted while reading. */
  readonly slot: number;
  readonly conversion: Conversion;
  /** The enterprise field's name, as its key is written in the answer. */
  readonly name: Uint8Array;
  /** The Customer field's `{"name":` or `,"name":`, as the output writes it before the value. */
  readonly prefix: Uint8Array;
  /** `name`, its closing quote and a colon, as the answer writes its key after the opening quote. */
  readonly nameAndColon: Uint8Array;
  /** `name` and `prefix` as `wordsOf` makes them. */
  readonly nameWords: Uint32Array;
  readonly prefixWords: Uint32Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Bytes as little-endian 32-bit words, the last one padded with zeros: compared and copied four bytes at a time. */
const wordsOf = (bytes: Uint8Array): Uint32Array => {
  const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
  padded.set(bytes);
  const view = new DataView(padded.buffer);
  return Uint32Array.from({ length: padded.length / 4 }, (_, i) => view.getUint32(4 * i, true));
};

const FIELDS: readonly Field[] = CUSTOMER_MAPPING.map(([field, from, conversion], slot) => {
  const name = encoder.encode(from);
  const prefix = encoder.encode(`${slot === 0 ? "{" : ","}"${field}":`);
  const nameAndColon = encoder.encode(`${from}":`);
  return { slot, conversion, name, nameAndColon, nameWords: wordsOf(name), prefix, prefixWords: wordsOf(prefix) };
});

const REQUIRED: readonly number[] = FIELDS.filter(
  ({ conversion }) => conversion === "required-text" || conversion === "required-integer",
).map(({ slot }) => slot);

// The known fields by the shape of their key (length and first byte): a key is compared with a couple of names at most.
const MAX_KEY = 64;
// Dense (every slot filled), so a lookup is a plain indexed load.
const BY_SHAPE: (Field[] | undefined)[] = Array.from({ length: MAX_KEY * 256 }, () => undefined);
for (const field of FIELDS) {
  const shape = field.name.length * 256 + (field.name[0] as number);
  BY_SHAPE[shape] = [...(BY_SHAPE[shape] ?? []), field];
}

const MET_BUCKETS = 256;
const MET_WORDS = MAX_KEY / 4;
/** The most keys an answer's reading keeps: an orchestrator's enterprises have a few dozen. */
const MAX_MET = 128;
const metBucket = (firstWord: number): number => Math.imul(firstWord, 0x9e3779b1) >>> 24;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
/** What a string held (`passString`'s answer). */
const ESCAPED = 1;
const NON_ASCII = 2;
/** What a slot holds for the enterprise being read. */
const ABSENT = 0;
const STRING = 1;
const NUMBER = 2;
const NULL = 3;
const TRUE = 4;
const FALSE = 5;
/** A coordinate read as round6 rounds it, in millionths (`coordinateOf`). */
const MILLIONTHS = 6;

/** Thrown to leave the fast path, or by the general one on an answer that is not a JSON array; either answers none. */
const NOT_USUAL = new Error("not the usual form");
/** Thrown once the answer is over the bound; `readCustomersJson` answers which. */
const OVER_ENTERPRISES = new Error("over the enterprises bound");
const OVER_REPLY_BYTES = new Error("over the reply bytes bound");

const isDigit = (byte: number | undefined): boolean => byte !== undefined && byte >= ZERO && byte <= NINE;
const isHex = (byte: number | undefined): boolean =>
  byte !== undefined &&
  ((byte >= ZERO && byte <= NINE) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66));

/**
 * A coordinate in millionths (under 1000, signed), written at `at` as JSON.stringify writes round6's double of it:
 * its whole part and up to six decimals, without trailing zeros (a decimal of at most 9 digits is the shortest that
 * reads back as that double), and no sign for zero. Answers where it ends.
 */
const writeMillionths = (out: Uint8Array, at: number, millionths: number): number => {
  let w = at;
  if (millionths < 0) out[w++] = MINUS;
  const magnitude = Math.abs(millionths);
  const whole = Math.floor(magnitude / 1e6);
  if (whole >= 100) out[w++] = ZERO + Math.floor(whole / 100);
  if (whole >= 10) out[w++] = ZERO + (Math.floor(whole / 10) % 10);
  out[w++] = ZERO + (whole % 10);
  let fraction = magnitude - whole * 1e6;
  if (fraction > 0) out[w++] = DOT;
  for (let place = 100_000; fraction > 0; place /= 10) {
    const digit = Math.floor(fraction / place);
    out[w++] = ZERO + digit;
    fraction -= digit * place;
  }
  return w;
};

/**
 * The customers' JSON and count, the answer being within the bound; with `general` false, undefined when an
 * enterprise is not of the usual form; with `general` true, the reason of the first enterprise that is not one.
 */
const transform = (
  bound: CustomersBound,
  general: boolean,
  expectedBytes = 0,
): {
  readonly more: (prefix: Uint8Array) => number;
  readonly end: (bytes: Uint8Array) => { readonly json: Uint8Array; readonly count: number } | string | undefined;
} => {
  // The answer, or as much of it as has come (`more`): the same bytes at the same places each time.
  let bytes: Uint8Array = new Uint8Array(0);
  let end = 0;
  let at = 0;
  // The answer as a Buffer (a view, not a copy): a number's digits are read as text from it.
  let latin1: Buffer = Buffer.alloc(0);
  // The answer and the output as DataViews too: read, compared and copied four bytes at a time.
  let words = new DataView(bytes.buffer);
  const take = (input: Uint8Array): void => {
    bytes = input;
    end = input.length;
    latin1 = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    words = new DataView(input.buffer, input.byteOffset, input.byteLength);
  };

  // Per slot, for the enterprise being read: what its last value was (ABSENT… FALSE), where it lies, its number.
  const kinds = new Uint8Array(FIELDS.length);
  const starts = new Int32Array(FIELDS.length);
  const ends = new Int32Array(FIELDS.length);
  const flags = new Uint8Array(FIELDS.length);
  const numbers = new Float64Array(FIELDS.length);

  // Never grown past the bound but for the room of the enterprise being written (its bytes in the answer, and some).
  // Grown to what the whole answer takes at the rate written so far (when its length is known), so that it is
  // allocated about once and at about its size: each large allocation weighs on the collector (a cold request's
  // profile: a full collection per request, for external memory).
  let out = new Uint8Array(Math.min(64 * 1024, bound.replyBytes));
  let outWords = new DataView(out.buffer);
  let written = 0;
  const reserve = (more: number): void => {
    if (written + more <= out.length) return;
    const projected = at > 0 ? Math.ceil(((written + more) / at) * expectedBytes * 1.05) : 0;
    const grown = new Uint8Array(
      Math.max(Math.min(Math.max(out.length * 2, projected), bound.replyBytes), written + more),
    );
    grown.set(out.subarray(0, written));
    out = grown;
    outWords = new DataView(out.buffer);
  };

  const fail = (): never => {
    throw NOT_USUAL;
  };

  const skipSpace = (): void => {
    let i = at;
    let byte = bytes[i] as number;
    // Most often none (an orchestrator writes its JSON compact): one test, and `at` left as it is.
    if (byte > 0x20) return;
    while (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) byte = bytes[++i] as number;
    at = i;
  };

  const expect = (byte: number): void => {
    if (bytes[at] !== byte) fail();
    at += 1;
  };

  /** Past a string (`at` just after its opening quote): 0 for plain ASCII, else ESCAPED and NON_ASCII as it has them. */
  const passString = (): number => {
    let i = at;
    let found = 0;
    for (;;) {
      // Plain bytes (printable ASCII but the quote and the backslash) four at a time while a word has none other
      // (SWAR: a word's high bits mark a byte that is zero once xored with a quote or a backslash, below 0x20 or
      // from 0x80; a false mark only sends the word to the byte loop); then one at a time; the rest below. Past
      // the end a byte is undefined, and every comparison with it false.
      for (; i + 4 <= end; i += 4) {
        const word = words.getInt32(i, true);
        const quotes = word ^ 0x22222222;
        const backslashes = word ^ 0x5c5c5c5c;
        const marks =
          ((quotes - 0x01010101) & ~quotes) | ((backslashes - 0x01010101) & ~backslashes) | (word - 0x20202020) | word;
        if ((marks & 0x80808080) !== 0) break;
      }
      let byte = bytes[i] as number;
      while (byte >= 0x20 && byte < 0x80 && byte !== QUOTE && byte !== BACKSLASH) byte = bytes[++i] as number;
      i += 1;
      if (byte === QUOTE) break;
      // A control byte, or the end.
      if (!(byte >= 0x20)) fail();
      else if (byte >= 0x80) found |= NON_ASCII;
      else if (byte === BACKSLASH) {
        found |= ESCAPED;
        const escape = bytes[i++];
        if (escape === 0x75) {
          if (!(isHex(bytes[i]) && isHex(bytes[i + 1]) && isHex(bytes[i + 2]) && isHex(bytes[i + 3]))) fail();
          i += 4;
        } else if (
          escape !== QUOTE &&
          escape !== BACKSLASH &&
          escape !== 0x2f &&
          escape !== 0x62 &&
          escape !== 0x66 &&
          escape !== 0x6e &&
          escape !== 0x72 &&
          escape !== 0x74
        )
          fail();
      }
    }
    at = i;
    return found;
  };

  // Set by `readNumber`: whether the number was written as JSON.stringify writes it (a short integer, no "-0"); for
  // a coordinate, whether it answered it in millionths (`coordinateOf`), else as a double.
  let canonical = false;
  let inMillionths = false;
  /**
   * A number (`at` on its first byte), checked against JSON's grammar, as JSON.parse reads it; a `coordinate` of
   * the usual form in millionths, as round6 rounds it (`coordinateOf`, `inMillionths` set).
   */
  const readNumber = (coordinate = false): number => {
    const start = at;
    let i = at;
    if (bytes[i] === MINUS) i += 1;
    let integer = 0;
    let byte = bytes[i];
    if (byte === ZERO) byte = bytes[++i];
    else if (byte !== undefined && byte > ZERO && byte <= NINE)
      do {
        integer = integer * 10 + (byte - ZERO);
        byte = bytes[++i];
      } while (byte !== undefined && byte >= ZERO && byte <= NINE);
    else fail();
    if (byte !== DOT && byte !== 0x65 && byte !== 0x45 && i - start <= 15) {
      // At most 15 digits: the value is exact, and JSON.stringify writes these digits back.
      at = i;
      const negative = bytes[start] === MINUS;
      canonical = !(negative && integer === 0);
      return negative ? -integer : integer;
    }
    canonical = false;
    if (coordinate && byte === DOT && integer < 1000) {
      const rounded = coordinateOf(integer, i + 1);
      if (rounded !== undefined) {
        inMillionths = true;
        return bytes[start] === MINUS ? -rounded : rounded;
      }
    }
    if (bytes[i] === DOT) {
      i += 1;
      if (!isDigit(bytes[i])) fail();
      while (isDigit(bytes[i])) i += 1;
    }
    if (bytes[i] === 0x65 || bytes[i] === 0x45) {
      i += 1;
      if (bytes[i] === PLUS || bytes[i] === MINUS) i += 1;
      if (!isDigit(bytes[i])) fail();
      while (isDigit(bytes[i])) i += 1;
    }
    at = i;
    return Number(latin1.toString("latin1", start, i));
  };

  /**
   * A coordinate's usual form (under 1000, a fraction at `from`, no exponent) as round6 rounds the double it reads
   * as, from its digits, without that double: its millionths, plus one when the digits past the sixth are past a
   * half. Within a millionth of a half, where the double's error could decide, or in another form, undefined (and
   * `readNumber` reads the double). The double is within 2e-7 millionths of the digits under 1000, so both round alike.
   */
  const coordinateOf = (integer: number, from: number): number | undefined => {
    let i = from;
    let millionths = integer;
    // The 7th to 12th digits, as an integer of six digits.
    let rest = 0;
    let digits = 0;
    let byte = bytes[i] as number;
    // Past the end a byte is undefined, and every comparison with it false.
    while (byte >= ZERO && byte <= NINE) {
      if (digits < 6) millionths = millionths * 10 + (byte - ZERO);
      else if (digits < 12) rest = rest * 10 + (byte - ZERO);
      digits += 1;
      byte = bytes[++i] as number;
    }
    if (digits === 0 || byte === 0x65 || byte === 0x45) return undefined;
    for (let place = digits; place < 6; place += 1) millionths *= 10;
    for (let place = Math.max(digits, 6); place < 12; place += 1) rest *= 10;
    if (rest >= 499_999 && rest <= 500_000) return undefined;
    at = i;
    return millionths + (rest > 500_000 ? 1 : 0);
  };

  /** `true`, `false` or `null` (`at` on its first byte); anything else is not JSON. */
  const readLiteral = (): number => {
    const i = at;
    if (bytes[i] === 0x6e && bytes[i + 1] === 0x75 && bytes[i + 2] === 0x6c && bytes[i + 3] === 0x6c) {
      at = i + 4;
      return NULL;
    }
    if (bytes[i] === 0x74 && bytes[i + 1] === 0x72 && bytes[i + 2] === 0x75 && bytes[i + 3] === 0x65) {
      at = i + 4;
      return TRUE;
    }
    if (
      bytes[i] === 0x66 &&
      bytes[i + 1] === 0x61 &&
      bytes[i + 2] === 0x6c &&
      bytes[i + 3] === 0x73 &&
      bytes[i + 4] === 0x65
    ) {
      at = i + 5;
      return FALSE;
    }
    return fail();
  };

  /** A member's key and colon, only checked and passed (`at` on its opening quote). */
  const passKey = (): void => {
    expect(QUOTE);
    passString();
    skipSpace();
    expect(COLON);
    skipSpace();
  };

  // The closing bytes of the containers `skipValue` is in, innermost last: a byte a level, grown as needed.
  let closers = new Uint8Array(64);

  /**
   * Any JSON value, only checked and passed (`at` on its first byte). Without recursion, so a value nested at any
   * depth is passed (and the enterprises after it counted) rather than overflowing the stack.
   */
  const skipValue = (): void => {
    let depth = 0;
    for (;;) {
      const byte = bytes[at];
      if (byte === QUOTE) {
        at += 1;
        passString();
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        const close = byte === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
        at += 1;
        skipSpace();
        if (bytes[at] !== close) {
          if (depth === closers.length) {
            const grown = new Uint8Array(depth * 2);
            grown.set(closers);
            closers = grown;
          }
          closers[depth++] = close;
          if (close === CLOSE_BRACE) passKey();
          // On to the container's first value.
          continue;
        }
        at += 1;
      } else if (byte === MINUS || isDigit(byte)) readNumber();
      else readLiteral();
      // A value passed: close the containers it ends, up to the next one's comma.
      for (;;) {
        if (depth === 0) return;
        skipSpace();
        const close = closers[depth - 1] as number;
        if (bytes[at] === COMMA) {
          at += 1;
          skipSpace();
          if (close === CLOSE_BRACE) passKey();
          break;
        }
        expect(close);
        depth -= 1;
      }
    }
  };

  /** The known field a key names (`at` on its opening quote), or undefined for a field the mapping does not read. */
  const readKey = (): Field | undefined => {
    const start = at + 1;
    at = start;
    // An escaped key may spell a known name: the general path reads it.
    if ((passString() & ESCAPED) !== 0) fail();
    const length = at - 1 - start;
    const candidates = length < MAX_KEY ? BY_SHAPE[length * 256 + (bytes[start] as number)] : undefined;
    if (candidates !== undefined)
      for (const known of candidates) {
        // Its whole words, then its last bytes.
        let i = 0;
        const whole = length - (length % 4);
        while (i < whole && words.getUint32(start + i, true) === known.nameWords[i / 4]) i += 4;
        while (i < length && known.name[i] === bytes[start + i]) i += 1;
        if (i === length) return known;
      }
    return undefined;
  };

  /** A known field's value (`at` on its first byte), if its type is the one its conversion takes. */
  const readField = ({ slot, conversion }: Field): void => {
    const byte = bytes[at];
    starts[slot] = at;
    if (byte === QUOTE) {
      if (conversion !== "text" && conversion !== "required-text") fail();
      at += 1;
      kinds[slot] = STRING;
      flags[slot] = passString();
    } else if (byte === MINUS || isDigit(byte)) {
      inMillionths = false;
      const value = readNumber(conversion === "coordinate");
      const integral = conversion === "integer" || conversion === "required-integer";
      // An integer written otherwise than JSON.stringify writes it ("1.0", "-0", 1e3) is rare: the general path writes it.
      if (
        (integral && !(canonical && Number.isInteger(value))) ||
        (conversion === "flag" && value !== 0 && value !== 1)
      )
        fail();
      if (!integral && conversion !== "flag" && conversion !== "coordinate") fail();
      kinds[slot] = inMillionths ? MILLIONTHS : NUMBER;
      numbers[slot] = value;
    } else {
      const kind = readLiteral();
      if (kind === NULL ? conversion === "required-text" || conversion === "required-integer" : conversion !== "flag")
        fail();
      kinds[slot] = kind;
    }
    ends[slot] = at;
  };

  /** A string that JSON.stringify would write otherwise than it is: decoded (bad bytes become U+FFFD), parsed and written again, as the general path does. */
  const rewritten = (slot: number): Uint8Array =>
    encoder.encode(
      JSON.stringify(
        JSON.parse(decoder.decode(bytes.subarray(starts[slot] as number, ends[slot] as number))) as string,
      ),
    );

  /** The customer of the enterprise just read, in CUSTOMER_MAPPING's order, as toCustomer + JSON.stringify write it. */
  const writeCustomer = (afterAnother: boolean, enterpriseBytes: number): void => {
    // Room for a comma, the keys, the longest constants, and every value's bytes, which the enterprise's hold (a
    // rewritten string reserves its own).
    const room = 1024 + enterpriseBytes;
    reserve(room);
    // The output and its length in locals while writing (the hot loop): stored back at the end.
    let o = out;
    let ow = outWords;
    let w = written;
    if (afterAnother) o[w++] = COMMA;
    for (const { slot, conversion, prefix, prefixWords } of FIELDS) {
      // Whole words: the last one's padding is written over next (the room reserved has space for it).
      for (let i = 0; i < prefixWords.length; i += 1) ow.setUint32(w + 4 * i, prefixWords[i] as number, true);
      w += prefix.length;
      const kind = kinds[slot];
      // What to copy from the answer, or the text to write instead.
      let start = 0;
      let stop = 0;
      let text = "";
      switch (conversion) {
        case "required-text":
        case "text": {
          if (kind !== STRING) text = '""';
          else if (
            flags[slot] === 0 ||
            (flags[slot] === NON_ASCII && isUtf8(bytes.subarray(starts[slot] as number, ends[slot] as number)))
          ) {
            // Already what JSON.stringify writes for it.
            start = starts[slot] as number;
            stop = ends[slot] as number;
          } else {
            const again = rewritten(slot);
            written = w;
            // It may be longer than its bytes were (each bad byte becomes three): room for it and, again, for the rest.
            reserve(again.length + room);
            o = out;
            ow = outWords;
            o.set(again, w);
            w += again.length;
          }
          break;
        }
        case "required-integer":
        case "integer":
          if (kind === NUMBER) {
            start = starts[slot] as number;
            stop = ends[slot] as number;
          } else text = "null";
          break;
        case "flag":
          text =
            kind === TRUE || (kind === NUMBER && numbers[slot] === 1)
              ? "true"
              : kind === FALSE || kind === NUMBER
                ? "false"
                : "null";
          break;
        case "coordinate":
          if (kind === MILLIONTHS) w = writeMillionths(o, w, numbers[slot] as number);
          else text = kind === NUMBER ? JSON.stringify(round6(numbers[slot])) : "null";
          break;
      }
      // Whole words, the last one past `stop` when the answer has its bytes (the next write goes over them).
      if (stop + 3 <= end) {
        for (let i = start; i < stop; i += 4) ow.setUint32(w + i - start, words.getUint32(i, true), true);
        w += stop - start;
      } else {
        let i = start;
        for (; i + 4 <= stop; i += 4, w += 4) ow.setUint32(w, words.getUint32(i, true), true);
        for (; i < stop; i += 1) o[w++] = bytes[i] as number;
      }
      for (let i = 0; i < text.length; i += 1) o[w++] = text.charCodeAt(i);
    }
    o[w++] = CLOSE_BRACE;
    written = w;
  };

  // The keys met so far (and the mapping's), by their first four bytes, each as its bytes from after the opening quote
  // to the colon: a key that repeats one is known by comparing those bytes, without reading it as a string and looking
  // it up (the cold request's profile: keys, nearly a third of the scan). Such bytes are a plain string's (no escape, no
  // control byte), its closing quote and a colon, so they are the same key. In flat arrays (a key's words at
  // `MET_WORDS` times its number), at most `MAX_MET` keys of at most `MAX_KEY` bytes per answer.
  const metWords = new Uint32Array(MAX_MET * MET_WORDS);
  const metLengths = new Int32Array(MAX_MET);
  // The known field's slot, or -1 for a key the mapping does not read.
  const metSlots = new Int32Array(MAX_MET);
  // Each bucket's keys as a chain: its first key's number plus one (0: none), then each key's next one's.
  const metHeads = new Int32Array(MET_BUCKETS);
  const metNext = new Int32Array(MAX_MET);
  let metCount = 0;
  const meet = (key: Uint8Array, slot: number): void => {
    const words = wordsOf(key);
    metWords.set(words, metCount * MET_WORDS);
    metLengths[metCount] = key.length;
    metSlots[metCount] = slot;
    const bucket = metBucket(words[0] as number);
    metNext[metCount] = metHeads[bucket] as number;
    metHeads[bucket] = metCount + 1;
    metCount += 1;
  };
  for (const field of FIELDS) meet(field.nameAndColon, field.slot);
  /**
   * The slot of the met key that the bytes at `at` (its opening quote) repeat with its colon, -1 if the mapping does
   * not read it (`at` then past them), or -2 when they repeat none.
   */
  const repeatedKey = (): number => {
    if (at + 5 > end) return -2;
    const from = at + 1;
    const first = words.getUint32(from, true);
    for (let key = (metHeads[metBucket(first)] as number) - 1; key >= 0; key = (metNext[key] as number) - 1) {
      const base = key * MET_WORDS;
      const length = metLengths[key] as number;
      if (metWords[base] !== first || from + length > end) continue;
      // Its whole words, then its last bytes (the last word's padding is zeros, so it is compared byte by byte).
      let i = 4;
      const whole = length - (length % 4);
      while (i < whole && words.getUint32(from + i, true) === metWords[base + (i >> 2)]) i += 4;
      if (i < whole) continue;
      const last = metWords[base + (i >> 2)] as number;
      while (i < length && bytes[from + i] === ((last >>> (8 * (i & 3))) & 0xff)) i += 1;
      if (i < length) continue;
      at = from + length;
      return metSlots[key] as number;
    }
    return -2;
  };

  /** One enterprise (`at` on its opening brace): its known fields read and typed, the others passed. */
  const readEnterprise = (): void => {
    expect(OPEN_BRACE);
    // Where a value lies is read only for a slot whose kind it read.
    kinds.fill(ABSENT);
    skipSpace();
    for (;;) {
      if (bytes[at] !== QUOTE) fail();
      let known: Field | undefined;
      const repeated = repeatedKey();
      if (repeated !== -2) {
        known = repeated >= 0 ? FIELDS[repeated] : undefined;
        if ((bytes[at] as number) <= 0x20) skipSpace();
      } else {
        const keyStart = at + 1;
        known = readKey();
        // Met from now on, when it is written compactly (its colon right after it) and fills one word to `MAX_KEY`.
        const length = at + 1 - keyStart;
        if (bytes[at] === COLON && length >= 4 && length <= MAX_KEY && metCount < MAX_MET)
          meet(bytes.subarray(keyStart, at + 1), known?.slot ?? -1);
        // Compact JSON (no white space around the colon or the comma) in two tests each; else step by step.
        if (bytes[at] === COLON && (bytes[at + 1] as number) > 0x20) at += 1;
        else {
          skipSpace();
          expect(COLON);
          skipSpace();
        }
      }
      // A repeated key: the last one counts, as in JSON.parse.
      if (known === undefined) skipValue();
      else readField(known);
      if (bytes[at] === COMMA && (bytes[at + 1] as number) > 0x20) {
        at += 1;
        continue;
      }
      skipSpace();
      if (bytes[at] !== COMMA) break;
      at += 1;
      skipSpace();
    }
    expect(CLOSE_BRACE);
    for (const slot of REQUIRED) if (kinds[slot] === ABSENT) fail();
  };

  /** The next enterprise read and its customer written; false (`at` back where it was) when it is not of the usual form. */
  const readUsual = (afterAnother: boolean): boolean => {
    const from = at;
    try {
      readEnterprise();
    } catch (error) {
      if (error !== NOT_USUAL) throw error;
      at = from;
      return false;
    }
    // Larger than any enterprise in practice: the general path refuses it, and what is written for it stays small.
    if (at - from > PARSE_LIMIT_BYTES) {
      at = from;
      return false;
    }
    writeCustomer(afterAnother, at - from);
    checkReplyBytes();
    return true;
  };

  /** The next enterprise parsed alone, decoded and its customer written; else why it is not an enterprise. */
  const readGeneral = (index: number): string | undefined => {
    const from = at;
    skipValue();
    if (at - from > PARSE_LIMIT_BYTES) return `enterprise [${index}] is larger than ${PARSE_LIMIT_BYTES / 2 ** 20} MiB`;
    let item: unknown;
    try {
      item = JSON.parse(decoder.decode(bytes.subarray(from, at)));
    } catch {
      // Not JSON after all: left to the whole answer's reading.
      return fail();
    }
    const customer = decodeCustomer(item, index);
    if (E.isLeft(customer)) return customer.left;
    const json = encoder.encode(JSON.stringify(customer.right));
    reserve(json.length + 1);
    if (index > 0) out[written++] = COMMA;
    out.set(json, written);
    written += json.length;
    checkReplyBytes();
    return undefined;
  };

  // With room for the closing bracket.
  const checkReplyBytes = (): void => {
    if (written + 1 > bound.replyBytes) throw OVER_REPLY_BYTES;
  };

  let count = 0;
  let usual = true;
  // The general path's first enterprise that is not one: the rest are only passed and counted.
  let invalid: string | undefined;
  // Whether the opening bracket has been read; `at` is then after it or after the `count`th enterprise.
  let opened = false;
  // How many bytes past `at` the next `more` waits for.
  let waitFor = 0;
  const open = (): void => {
    // As `TextDecoder` decodes the answer for `JSON.parse`.
    if (general && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) at = 3;
    skipSpace();
    expect(OPEN_BRACKET);
    out[written++] = OPEN_BRACKET;
    opened = true;
  };
  /** Past the white space and comma before the next enterprise (`at` after the last one); false at the closing bracket, or at anything else. */
  const toNext = (): boolean => {
    skipSpace();
    if (count === 0 ? bytes[at] === CLOSE_BRACKET : bytes[at] !== COMMA) return false;
    if (count > 0) at += 1;
    skipSpace();
    return true;
  };

  /**
   * The usual enterprises of what has come of the answer (a prefix of it, growing), read and written: those it
   * holds whole, each as `end` would read it (an enterprise is read from its bytes alone), so that `end` goes on
   * from there. It stops, to wait for more, before anything it cannot read yet, and never fails: what it cannot
   * read is left for `end`, which decides on the whole answer.
   */
  const more = (prefix: Uint8Array): number => {
    // Tried again only once what waits has doubled, so that an enterprise that stops it is read again a few times at most.
    if (general || !usual || prefix.length - at < waitFor) return count;
    take(prefix);
    // An enterprise is an object: one that begins after the last closing brace so far is not whole yet, so it is not
    // begun. A reading cut short by the piece's end, thrown and begun again, cost about 40 µs a piece (over ten
    // enterprises' reading): 10,000 enterprises in 64 KiB pieces, interleaved, 0.78–0.88× the scan's time without it.
    let lastClose = end - 1;
    while (lastClose > at && bytes[lastClose] !== CLOSE_BRACE) lastClose -= 1;
    let from = at;
    let writtenFrom = written;
    try {
      if (!opened) open();
      for (;;) {
        from = at;
        writtenFrom = written;
        if (!toNext() || at >= lastClose || count === bound.enterprises || !readUsual(count > 0)) break;
        count += 1;
      }
    } catch {
      // The bracket not come yet, or the reply over its bound: `end` says so.
      written = opened ? writtenFrom : 0;
    }
    at = opened ? from : 0;
    waitFor = 2 * (end - at);
    return count;
  };

  return {
    more,
    end: (whole) => {
      take(whole);
      if (!opened) open();
      while (toNext()) {
        if (count === bound.enterprises) throw OVER_ENTERPRISES;
        if (general) {
          if (invalid === undefined) invalid = readGeneral(count);
          else skipValue();
        } else {
          usual &&= readUsual(count > 0);
          if (!usual) skipValue();
        }
        count += 1;
      }
      expect(CLOSE_BRACKET);
      skipSpace();
      if (at !== end) fail();
      if (!usual) return undefined;
      if (invalid !== undefined) return invalid;
      checkReplyBytes();
      reserve(1);
      out[written++] = CLOSE_BRACKET;
      // The customers cache keeps it: a copy of the exact size, unless the room left is small.
      return { json: written >= out.length * 0.9 ? out.subarray(0, written) : out.slice(0, written), count };
    },
  };
};
