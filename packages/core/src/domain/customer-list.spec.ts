import { describe, expect, it } from "vitest";
import { aCustomer } from "../../testing/builders.js";
import { customerListOf, customerListOfJson, jsonArrayBytes } from "./customer-list.js";

const bytesOf = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe("jsonArrayBytes", () => {
  const customer = (i: number) => ({
    id: i,
    name: `Montréal ${i} "quoted" \u2028`,
    latitude: i % 3 === 0 ? null : i / 7,
    tags: [i, { nested: true }],
  });

  it.each([0, 1, 2, 255, 256, 257, 1000])("makes the bytes of JSON.stringify for %i items, slice by slice", (count) => {
    const items = Array.from({ length: count }, (_, i) => customer(i));
    expect(jsonArrayBytes(items)).toEqual(bytesOf(items));
  });
});

describe("CustomerList", () => {
  const items = [aCustomer({ id: 1, name: "Zürich AG" }), aCustomer({ id: 2, latitude: null })];

  it("made of values: the same values, their JSON made once", () => {
    const list = customerListOf(items);
    expect(list.count).toBe(2);
    expect(list.items).toBe(items);
    expect(list.json).toEqual(bytesOf(items));
    expect(list.json).toBe(list.json);
  });

  it("made of JSON: the same bytes, the values parsed once", () => {
    const json = bytesOf(items);
    const list = customerListOfJson(json, 2);
    expect(list.json).toBe(json);
    expect(list.items).toEqual(items);
    expect(list.items).toBe(list.items);
  });
});
