import * as t from "io-ts";
import { describe, expect, it } from "vitest";
import { decodeInSlices, leadingObjects } from "./slices.js";

const Item = t.type({ n: t.number });
const items = (count: number) => Array.from({ length: count }, (_, n) => ({ n }));

describe("decodeInSlices", () => {
  it("hands on the first items before the rest are decoded, yielding between slices, then resolves to all", async () => {
    const seen: string[] = [];
    const all = await decodeInSlices(
      items(10),
      Item,
      (first, total) => seen.push(`first ${first.length} of ${total}`),
      {
        first: 3,
        size: 4,
        yieldTo: async () => void seen.push("yield"),
      },
    );
    expect(seen).toEqual(["first 3 of 10", "yield", "yield"]);
    expect(all).toEqual(items(10));
  });

  it("decodes a short list at once, without a first slice or a yield", async () => {
    const seen: string[] = [];
    const all = await decodeInSlices(items(2), Item, () => seen.push("first"), {
      first: 3,
      yieldTo: async () => void seen.push("yield"),
    });
    expect(seen).toEqual([]);
    expect(all).toEqual(items(2));
  });

  it("answers undefined for what is not an array of the codec's items, a bad item after the first slice too", async () => {
    expect(await decodeInSlices({ n: 1 }, Item, () => undefined)).toBeUndefined();
    const firsts: number[] = [];
    const bad = [...items(5), { n: "six" }];
    expect(
      await decodeInSlices(bad, Item, (first) => firsts.push(first.length), { first: 2, size: 2 }),
    ).toBeUndefined();
    expect(firsts).toEqual([2]);
  });

  it("stops once the answer is no longer wanted", async () => {
    let wanted = true;
    const all = await decodeInSlices(items(10), Item, () => (wanted = false), { first: 2, current: () => wanted });
    expect(all).toBeUndefined();
  });
});

describe("leadingObjects", () => {
  const text = JSON.stringify([{ a: 'x}]{["' }, { b: [1, { c: 2 }] }, { d: null }]);

  it("parses the complete objects at the start of an array's text, whatever has arrived", () => {
    expect(leadingObjects(text, 2)).toEqual([{ a: 'x}]{["' }, { b: [1, { c: 2 }] }]);
    expect(leadingObjects(text, 9)).toEqual(JSON.parse(text));
    for (let end = 0; end <= text.length; end += 1) {
      const some = leadingObjects(text.slice(0, end), 9);
      expect(some).toEqual((JSON.parse(text) as unknown[]).slice(0, some?.length));
    }
    expect(leadingObjects(" [ ", 1)).toEqual([]);
  });

  it("answers undefined for what is not an array of objects", () => {
    expect(leadingObjects('{"a":1}', 1)).toBeUndefined();
    expect(leadingObjects("[1, 2]", 1)).toBeUndefined();
    expect(leadingObjects("[[1]]", 1)).toBeUndefined();
  });
});
