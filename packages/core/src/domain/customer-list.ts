import type { Customer } from "./customer.js";

/**
 * A partner's customers in both the forms their users take: the values (the CLI's tables, an embedding
 * service) and their JSON (what the REST driver sends). An orchestrator adapter makes whichever form it
 * has first; the other is made from it on first demand, once. The customers cache keeps the list, so each
 * form is made once per fill.
 */
export interface CustomerList {
  readonly count: number;
  /** The customers, in the interface's form and order. */
  readonly items: readonly Customer[];
  /** The UTF-8 JSON array of `items`: exactly the bytes `JSON.stringify(items)` encodes to. */
  readonly json: Uint8Array;
}

/** Items per slice in `jsonArrayBytes`: each slice's text is small enough to die young. */
const SLICE_ITEMS = 256;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The UTF-8 bytes of `JSON.stringify(items)`, made slice by slice: a large list (50,000 customers: 22 MiB of
 * JSON) never exists as one string on the heap beside the values it is made of.
 */
export const jsonArrayBytes = (items: readonly unknown[]): Uint8Array => {
  const parts: Uint8Array[] = [];
  let length = 2;
  for (let start = 0; start < items.length; start += SLICE_ITEMS) {
    // Each slice without its brackets; "[", the commas between slices and "]" added around them.
    const part = encoder.encode(JSON.stringify(items.slice(start, start + SLICE_ITEMS)).slice(1, -1));
    parts.push(part);
    length += part.length + (start === 0 ? 0 : 1);
  }
  const bytes = new Uint8Array(length);
  bytes[0] = 0x5b; // [
  let at = 1;
  for (const [index, part] of parts.entries()) {
    if (index > 0) bytes[at++] = 0x2c; // ,
    bytes.set(part, at);
    at += part.length;
  }
  bytes[at] = 0x5d; // ]
  return bytes;
};

/** A list made of its values; its JSON is written on first demand. */
export const customerListOf = (items: readonly Customer[]): CustomerList => {
  let json: Uint8Array | undefined;
  return {
    count: items.length,
    items,
    get json() {
      json ??= jsonArrayBytes(items);
      return json;
    },
  };
};

/**
 * A list made of its JSON, as `CustomerList.json` describes it (the caller vouches for its form: it wrote it
 * from decoded values); its values are parsed from it on first demand.
 */
export const customerListOfJson = (json: Uint8Array, count: number): CustomerList => {
  let items: readonly Customer[] | undefined;
  return {
    count,
    get items() {
      items ??= JSON.parse(decoder.decode(json)) as readonly Customer[];
      return items;
    },
    json,
  };
};
