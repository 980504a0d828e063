import { isLeft } from "fp-ts/lib/Either.js";
import type * as t from "io-ts";

/** After the browser's next frame (in a browser; the next task elsewhere): a slice yields to it, so that what the
 * page has is painted, and input is taken, between two slices. */
export const nextFrame = (): Promise<void> =>
  new Promise((resolve) =>
    typeof requestAnimationFrame === "function"
      ? requestAnimationFrame(() => setTimeout(resolve, 0))
      : setTimeout(resolve, 0),
  );

export interface SliceOptions {
  /** How many items come first, on their own: a screenful. */
  readonly first?: number;
  /** How many items each later slice decodes before yielding. */
  readonly size?: number;
  /** False once the answer is no longer wanted (a newer load began): decoding stops there. */
  readonly current?: () => boolean;
  readonly yieldTo?: () => Promise<void>;
}

/**
 * A JSON array decoded with `codec` a slice at a time, yielding between slices so that the page can show its first
 * items while the rest are decoded: `onFirst` gets the first `first` items and the array's length (when there are
 * more). Resolves to every item; undefined when the value is not an array of the codec's items (or no longer wanted).
 */
export const decodeInSlices = async <A>(
  value: unknown,
  codec: t.Decoder<unknown, A>,
  onFirst: (items: readonly A[], total: number) => void,
  { first = 100, size = 5_000, current = () => true, yieldTo = nextFrame }: SliceOptions = {},
): Promise<readonly A[] | undefined> => {
  if (!Array.isArray(value)) return undefined;
  const items: A[] = [];
  for (let end = Math.min(first, value.length); ; end = Math.min(end + size, value.length)) {
    for (let i = items.length; i < end; i += 1) {
      const decoded = codec.decode(value[i]);
      if (isLeft(decoded)) return undefined;
      items.push(decoded.right);
    }
    if (end === value.length) return items;
    if (end === first) onFirst(items.slice(), value.length);
    await yieldTo();
    if (!current()) return undefined;
  }
};

/**
 * The first `count` elements of a JSON array of objects from the start of its text (as much of it as has arrived),
 * each parsed: fewer when they have not all arrived; undefined when the text is no such array. Strings and nesting
 * are followed, so a brace or a bracket inside a string is text.
 */
export const leadingObjects = (text: string, count: number): unknown[] | undefined => {
  const items: unknown[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let i = 0; i < text.length && items.length < count; i += 1) {
    const c = text.charAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      depth += 1;
      if (depth === 2 && c === "{") start = i;
      else if (depth === 2 || (depth === 1 && c !== "[")) return undefined;
    } else if (c === "}" || c === "]") {
      depth -= 1;
      if (depth === 1 && start >= 0) items.push(JSON.parse(text.slice(start, i + 1)));
      start = depth === 1 ? -1 : start;
    } else if (depth === 0 ? c.trim() !== "" : depth === 1 && c !== "," && c.trim() !== "") return undefined;
  }
  return items;
};
