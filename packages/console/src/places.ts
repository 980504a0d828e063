import type { Customer } from "@sdwan-connections/core/wire";

/** A point of the map (in the map's units) and what stands there. */
export interface Located<A> {
  readonly x: number;
  readonly y: number;
  readonly item: A;
}

/** Items drawn as one mark, at their centre. */
export interface Place<A> {
  readonly x: number;
  readonly y: number;
  readonly items: readonly A[];
}

/**
 * Groups points into places, transitively: the map is cut into square cells
 * of side `cell`, and every cell with points joins its occupied neighbours
 * (the 8 around it), so a group is a connected patch of cells. Two points
 * less than `cell` apart always share a place, whatever their order or where
 * the cells' edges fall; two places are always more than `cell` apart.
 * Largest places first, so that a small one drawn over a large one stays
 * clickable.
 */
export const groupPlaces = <A>(points: readonly Located<A>[], cell: number): readonly Place<A>[] => {
  const cells = new Map<string, { readonly column: number; readonly row: number; readonly points: Located<A>[] }>();
  for (const point of points) {
    const [column, row] = [Math.floor(point.x / cell), Math.floor(point.y / cell)];
    const key = `${column},${row}`;
    const found = cells.get(key);
    if (found === undefined) cells.set(key, { column, row, points: [point] });
    else found.points.push(point);
  }
  const grouped = new Set<string>();
  const places: Place<A>[] = [];
  for (const [start] of cells) {
    if (grouped.has(start)) continue;
    grouped.add(start);
    const members: Located<A>[] = [];
    const pending = [start];
    for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
      const { column, row, points: inCell } = cells.get(key)!;
      members.push(...inCell);
      for (const dx of [-1, 0, 1]) {
        for (const dy of [-1, 0, 1]) {
          const neighbour = `${column + dx},${row + dy}`;
          if (cells.has(neighbour) && !grouped.has(neighbour)) {
            grouped.add(neighbour);
            pending.push(neighbour);
          }
        }
      }
    }
    const mean = (coordinate: (point: Located<A>) => number): number =>
      members.reduce((sum, point) => sum + coordinate(point), 0) / members.length;
    places.push({
      x: mean((point) => point.x),
      y: mean((point) => point.y),
      items: members.map((point) => point.item),
    });
  }
  return places.sort((a, b) => b.items.length - a.items.length);
};

/** The names of the customers' cities, the most frequent first. */
const citiesOf = (customers: readonly Customer[]): string[] => {
  const counts = new Map<string, number>();
  for (const { city } of customers) if (city !== "") counts.set(city, (counts.get(city) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([city]) => city);
};

/** A mark's name: "Acme Corp" (one customer), "14 customers in Seattle", "40 customers in London, Paris and 2 other places". */
export const placeLabel = ({ items }: Place<Customer>): string => {
  if (items.length === 1) return items[0]?.name ?? "";
  const [first, second, ...others] = citiesOf(items);
  const where =
    first === undefined
      ? "here"
      : second === undefined
        ? `in ${first}`
        : others.length === 0
          ? `in ${first} and ${second}`
          : `in ${first}, ${second} and ${others.length} other ${others.length === 1 ? "place" : "places"}`;
  return `${items.length} customers ${where}`;
};
