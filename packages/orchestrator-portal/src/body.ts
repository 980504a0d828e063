import type { FetchResponse } from "./options.js";

// An answer's body, read into one buffer; a list's large buffer kept, once read, for the next list's body.

/**
 * A large body's buffer is kept for the next one once its reading is done: a new one per cold listing (6.8 MB for
 * 10,000 enterprises) weighed on the collector as external memory (the service's cold request, interleaved at load
 * 3–5: GC per request 6.7–11.8 ms on average, 5.9–6.6 with the buffer kept). One is kept, of at most
 * `SPARE_MAX_BYTES`, so an answer of the list limit's size is never held.
 */
const SPARE_MIN_BYTES = 1024 * 1024;
const SPARE_MAX_BYTES = 16 * 1024 * 1024;
let spare: ArrayBuffer | undefined;
/** The buffers `bufferFor` made or handed out: only these are ever kept (never one a caller could still hold). */
const ours = new WeakSet<ArrayBuffer>();

/** A buffer of `size` bytes: the spare if it is large enough (its bytes past those written are never read). */
const bufferFor = (size: number): Uint8Array => {
  if (size < SPARE_MIN_BYTES || size > SPARE_MAX_BYTES) return new Uint8Array(size);
  if (spare !== undefined && spare.byteLength >= size) {
    const taken = spare;
    spare = undefined;
    return new Uint8Array(taken, 0, size);
  }
  const made = new Uint8Array(size);
  ours.add(made.buffer);
  return made;
};

/**
 * A body whose reading is done: its buffer, if `bufferFor` made it, kept for the next body (the larger of two). Its
 * bytes must no longer be held by anything: the customers' JSON is written into a buffer of its own.
 */
export const doneWithBody = (bytes: Uint8Array): void => {
  const { buffer } = bytes;
  if (
    buffer instanceof ArrayBuffer &&
    ours.has(buffer) &&
    (spare === undefined || spare.byteLength < buffer.byteLength)
  )
    spare = buffer;
};

/** The length an answer says it has (Content-Length), else 0. */
export const declaredLength = ({ headers }: FetchResponse): number =>
  Math.max(0, Math.trunc(Number(headers.get("content-length"))) || 0);

/**
 * The body's bytes, in one buffer as they arrive (`more` told of each piece, with every byte so far), bounded as
 * node-fetch's `size` bounds them (a `max-size` error): node-fetch's `arrayBuffer()` copies them twice (its concat,
 * then a slice), 2 × 6.8 MB for 10,000 enterprises. Its room: `room` (the length the answer says, within the bound).
 */
export const readBody = async (
  response: FetchResponse,
  room: number,
  limitBytes: number,
  more?: (prefix: Uint8Array) => void,
): Promise<Uint8Array> => {
  if (response.body === undefined || response.body === null) return new Uint8Array(await response.arrayBuffer());
  let bytes = bufferFor(room || 64 * 1024);
  let length = 0;
  for await (const piece of response.body) {
    const chunk = typeof piece === "string" ? Buffer.from(piece) : piece;
    length += chunk.length;
    if (length > limitBytes) throw Object.assign(new Error(`body over ${limitBytes} bytes`), { type: "max-size" });
    if (length > bytes.length) {
      const grown = new Uint8Array(Math.min(Math.max(bytes.length * 2, length), limitBytes));
      grown.set(bytes.subarray(0, length - chunk.length));
      bytes = grown;
    }
    bytes.set(chunk, length - chunk.length);
    more?.(bytes.subarray(0, length));
  }
  return bytes.subarray(0, length);
};
