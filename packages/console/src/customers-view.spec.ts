import { describe, expect, it } from "vitest";
import type { Customer } from "@sdwan-connections/core/wire";
import { filterCustomers, indexCustomers, nextSort, sortCustomers, type Sort } from "./customers-view.js";
import { customer } from "../test/customer.js";

const viewCustomers = (customers: Parameters<typeof filterCustomers>[0], filter: string, sort: Sort | undefined) =>
  sortCustomers(filterCustomers(customers, filter), sort);

const ids = (rows: readonly Customer[]): number[] => rows.map((row) => row.id);

describe("filterCustomers and sortCustomers", () => {
  const customers = indexCustomers([
    customer(3, { name: "Édith Foods", city: "Paris", country: "FR" }),
    customer(10, { name: "beacon labs", city: "Tokyo", country: "JP" }),
    customer(2, { name: "Atlas Retail", city: "", country: "US" }),
    customer(1, { name: "Customer 10", city: "Austin", country: "US" }),
  ]);

  it("keeps every customer in their order without a filter or sort", () => {
    expect(ids(viewCustomers(customers, "  ", undefined))).toEqual([3, 10, 2, 1]);
  });

  it("keeps those containing every word of the filter, in any field searched and any case", () => {
    expect(ids(viewCustomers(customers, "us", undefined))).toEqual([2, 1]);
    expect(ids(viewCustomers(customers, "US austin", undefined))).toEqual([1]);
    expect(ids(viewCustomers(customers, "TOKYO", undefined))).toEqual([10]);
    expect(ids(viewCustomers(customers, "e3", undefined))).toEqual([3]);
    expect(ids(viewCustomers(customers, "nowhere", undefined))).toEqual([]);
  });

  it("sorts text in the reader's collation (case and accents aside) and numbers by value", () => {
    expect(ids(viewCustomers(customers, "", { field: "name", direction: "ascending" }))).toEqual([2, 10, 1, 3]);
    expect(ids(viewCustomers(customers, "", { field: "id", direction: "descending" }))).toEqual([10, 3, 2, 1]);
  });

  it("puts empty values last in both directions", () => {
    expect(ids(viewCustomers(customers, "", { field: "city", direction: "ascending" }))).toEqual([1, 3, 10, 2]);
    expect(ids(viewCustomers(customers, "", { field: "city", direction: "descending" }))).toEqual([10, 3, 1, 2]);
  });

  it("does not reorder the list it was given", () => {
    const filtered = filterCustomers(customers, "");
    sortCustomers(filtered, { field: "id", direction: "ascending" });
    expect(ids(filtered)).toEqual([3, 10, 2, 1]);
  });
});

describe("nextSort", () => {
  it("goes ascending, then descending, and starts ascending on another column", () => {
    const first = nextSort(undefined, "name");
    expect(first).toEqual({ field: "name", direction: "ascending" });
    expect(nextSort(first, "name")).toEqual({ field: "name", direction: "descending" });
    expect(nextSort(nextSort(first, "name"), "name")).toEqual({ field: "name", direction: "ascending" });
    expect(nextSort(first, "city")).toEqual({ field: "city", direction: "ascending" });
  });
});
