import { describe, expect, it } from "vitest";
import { jsonArrayBytes } from "./representation.js";

describe("jsonArrayBytes", () => {
  const customer = (i: number) => ({ id: i, name: `Montréal ${i} "quoted" \u2028`, latitude: i % 3 === 0 ? null : i / 7, tags: [i, { nested: true }] });

  it.each([0, 1, 2, 255, 256, 257, 1000])("makes the bytes of JSON.stringify for %i items, slice by slice", (count) => {
    const items = Array.from({ length: count }, (_, i) => customer(i));
    expect(jsonArrayBytes(items).equals(Buffer.from(JSON.stringify(items)))).toBe(true);
  });
});
