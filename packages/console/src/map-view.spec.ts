import { describe, expect, it } from "vitest";
import { bounded, MAX_ZOOM, pannedBy, spreadApart, WHOLE_WORLD, zoomedAt } from "./map-view.js";

const [W, H] = [960, 500];

describe("the map's view", () => {
  it("zooms around a point, which stays where it was", () => {
    const view = zoomedAt(WHOLE_WORLD, 4, 480, 100, W, H);
    expect(view.k).toBe(4);
    // The map point under (480, 100) before is still under it.
    expect((480 - view.x) / view.k).toBeCloseTo(480);
    expect((100 - view.y) / view.k).toBeCloseTo(100);
  });

  it("never zooms out past the whole world nor in past MAX_ZOOM, and never pans past an edge", () => {
    expect(zoomedAt(WHOLE_WORLD, 0.5, 10, 10, W, H)).toEqual(WHOLE_WORLD);
    expect(zoomedAt(WHOLE_WORLD, 1000, 10, 10, W, H).k).toBe(MAX_ZOOM);
    expect(pannedBy(WHOLE_WORLD, 100, -100, W, H)).toEqual(WHOLE_WORLD);
    const zoomed = zoomedAt(WHOLE_WORLD, 2, 0, 0, W, H);
    expect(pannedBy(zoomed, -10_000, -10_000, W, H)).toEqual({ k: 2, x: -W, y: -H });
    expect(bounded({ k: 2, x: 50, y: 50 }, W, H)).toEqual({ k: 2, x: 0, y: 0 });
  });
});

describe("spreadApart", () => {
  it("moves overlapping marks (London, Amsterdam, Paris on a world map) until none overlaps", () => {
    const discs = [
      { x: 474, y: 113, r: 12 },
      { x: 480, y: 110, r: 10 },
      { x: 476, y: 119, r: 11 },
    ];
    const spread = spreadApart(discs);
    for (const [i, a] of spread.entries())
      for (const [j, b] of spread.entries())
        if (i < j)
          expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThanOrEqual(discs[i]!.r + discs[j]!.r + 1 - 1e-6);
    // Not far: about one mark's size from where they are.
    for (const [i, point] of spread.entries())
      expect(Math.hypot(point.x - discs[i]!.x, point.y - discs[i]!.y)).toBeLessThan(30);
  });

  it("leaves marks that overlap nothing where they are, and parts marks at the same point", () => {
    expect(
      spreadApart([
        { x: 0, y: 0, r: 4 },
        { x: 100, y: 0, r: 4 },
      ]),
    ).toEqual([
      { x: 0, y: 0 },
      { x: 100, y: 0 },
    ]);
    const [a, b] = spreadApart([
      { x: 5, y: 5, r: 4 },
      { x: 5, y: 5, r: 4 },
    ]);
    expect(Math.hypot(a!.x - b!.x, a!.y - b!.y)).toBeGreaterThanOrEqual(9 - 1e-6);
  });
});
