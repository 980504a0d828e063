import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Request, Response } from "express";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Smaller answers are sent as they are: compressing them saves less than it costs. */
export const COMPRESS_MIN_BYTES = 1024;

type Encoding = "br" | "gzip";

/** One JSON answer, serialized once; its compressed forms made on first demand, once. */
interface Representation {
  readonly identity: Buffer;
  /** Weak: the same for every encoding of the same JSON, and for the same JSON in every instance. */
  readonly etag: string;
  readonly encoded: Map<Encoding, Promise<Buffer>>;
}

const encoders: Record<Encoding, (bytes: Buffer) => Promise<Buffer>> = {
  gzip: (bytes) => gzipAsync(bytes),
  // Quality 5: most of brotli's gain at a small part of its default (11) cost, paid once per list.
  br: (bytes) =>
    brotliAsync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
};

// Keyed by the value the answer is made of: a list lives as long as its store or cache keeps it (the port's list cache rule).
const representations = new WeakMap<object, Representation>();

const representationOf = (value: object, serialize: () => string | Uint8Array): Representation => {
  let representation = representations.get(value);
  if (representation === undefined) {
    const serialized = serialize();
    // A view of the bytes, not a copy.
    const identity =
      typeof serialized === "string"
        ? Buffer.from(serialized)
        : Buffer.from(serialized.buffer, serialized.byteOffset, serialized.byteLength);
    const etag = `W/"${createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"`;
    representation = { identity, etag, encoded: new Map() };
    representations.set(value, representation);
  }
  return representation;
};

/** Whether If-None-Match names this entity tag (weak comparison, `*` included). */
const matches = (ifNoneMatch: string | undefined, etag: string): boolean =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(",").some((tag) => {
    const trimmed = tag.trim();
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag.replace(/^W\//, "");
  });

/**
 * A JSON answer made of a value that stays the same while its data does (a
 * list from the store, customers from the cache): serialized once, compressed
 * once per encoding a client asks for (br, gzip; `Accept-Encoding` negotiated,
 * q=0 honoured), and answered 304 to a client that already holds it.
 */
export const sendRepresentation = async (
  req: Request,
  res: Response,
  value: object,
  serialize: () => string | Uint8Array,
  // Clients may keep it, but must revalidate; shared caches may not keep an authenticated answer.
  cacheControl = "private, no-cache",
): Promise<void> => {
  const { identity, etag, encoded } = representationOf(value, serialize);
  res.setHeader("ETag", etag);
  res.setHeader("Vary", "Accept-Encoding");
  res.setHeader("Cache-Control", cacheControl);
  if (matches(req.headers["if-none-match"], etag)) {
    res.status(304).end();
    return;
  }
  // No Accept-Encoding: identity, as negotiation would answer, without its parse.
  const offered = identity.length >= COMPRESS_MIN_BYTES && req.headers["accept-encoding"] !== undefined;
  const accepted = offered && req.acceptsEncodings("br", "gzip", "identity");
  const encoding: Encoding | undefined = accepted === "br" || accepted === "gzip" ? accepted : undefined;
  let body = identity;
  if (encoding !== undefined) {
    let pending = encoded.get(encoding);
    if (pending === undefined) {
      pending = encoders[encoding](identity);
      encoded.set(encoding, pending);
    }
    body = await pending;
    res.setHeader("Content-Encoding", encoding);
  }
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", body.length);
  res.end(req.method === "HEAD" ? undefined : body);
};
