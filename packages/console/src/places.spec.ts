import { describe, expect, it } from "vitest";
import { groupPlaces, placeLabel, type Located } from "./places.js";
import { customer } from "../test/customer.js";

const CELL = 4;
const at = (x: number, y: number, item: string): Located<string> => ({ x, y, item });
const itemsOf = (places: ReturnType<typeof groupPlaces<string>>): string[][] =>
  places.map((place) => [...place.items].sort());

describe("groupPlaces", () => {
  it("makes one place of 14 points within a pixel of each other, at their centre", () => {
    // Seattle's customers: a tenth of a degree around the city, less than a pixel on the map.
    const seattle = Array.from({ length: 14 }, (_, index) =>
      at(151.3 + (index % 3) * 0.4, 97.8 + (index % 5) * 0.3, `seattle-${index}`),
    );
    const places = groupPlaces(seattle, CELL);
    expect(places).toHaveLength(1);
    expect(places[0]?.items).toHaveLength(14);
    expect(places[0]?.x).toBeCloseTo(seattle.reduce((sum, point) => sum + point.x, 0) / 14);
  });

  it("keeps two cities apart as two places, the larger first", () => {
    const places = groupPlaces([at(100, 100, "paris-1"), at(300, 120, "tokyo-1"), at(300.5, 120.2, "tokyo-2")], CELL);
    expect(itemsOf(places)).toEqual([["tokyo-1", "tokyo-2"], ["paris-1"]]);
  });

  it("groups points a hair apart across a cell's edge (not only within one cell)", () => {
    expect(itemsOf(groupPlaces([at(3.99, 3.99, "a"), at(4.01, 4.01, "b")], CELL))).toEqual([["a", "b"]]);
  });

  it("is transitive, whatever the order: a chain of near points is one place", () => {
    const chain = [at(0, 50, "a"), at(10, 50, "e"), at(2.5, 50, "b"), at(7.5, 50, "d"), at(5, 50, "c")];
    expect(itemsOf(groupPlaces(chain, CELL))).toEqual([["a", "b", "c", "d", "e"]]);
    expect(itemsOf(groupPlaces([...chain].reverse(), CELL))).toEqual([["a", "b", "c", "d", "e"]]);
  });

  it("keeps every point: each is in exactly one place", () => {
    const points = Array.from({ length: 500 }, (_, index) => at((index * 37) % 200, (index * 53) % 90, `p${index}`));
    const places = groupPlaces(points, CELL);
    expect(places.flatMap((place) => place.items).sort()).toEqual(points.map((point) => point.item).sort());
  });

  it("has nothing to draw without points", () => {
    expect(groupPlaces([], CELL)).toEqual([]);
  });
});

describe("placeLabel", () => {
  const place = (cities: readonly string[]) => ({
    x: 0,
    y: 0,
    items: cities.map((city, index) => customer(index, { city })),
  });

  it("names one customer by its name", () => {
    expect(placeLabel({ x: 0, y: 0, items: [customer(7, { name: "Acme Corp", city: "Seattle" })] })).toBe("Acme Corp");
  });

  it("counts several and names their cities, the most frequent first", () => {
    expect(placeLabel(place(Array.from({ length: 14 }, () => "Seattle")))).toBe("14 customers in Seattle");
    expect(placeLabel(place(["Vancouver", "Seattle", "Seattle"]))).toBe("3 customers in Seattle and Vancouver");
    expect(placeLabel(place(["Paris", "London", "London", "Amsterdam", "Dublin"]))).toBe(
      "5 customers in London, Paris and 2 other places",
    );
    expect(placeLabel(place(["", ""]))).toBe("2 customers here");
  });
});
