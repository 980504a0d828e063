import { describe, expect, it } from "vitest";
import { scrollToShow, visibleRows } from "./virtual-window.js";

describe("visibleRows", () => {
  it("renders the rows in view and the overscan around them, within the list", () => {
    expect(visibleRows(0, 320, 10_000, 32, 8)).toEqual({ first: 0, last: 18 });
    expect(visibleRows(32 * 5000, 320, 10_000, 32, 8)).toEqual({ first: 4992, last: 5018 });
    expect(visibleRows(32 * 9990, 320, 10_000, 32, 8)).toEqual({ first: 9982, last: 10_000 });
    expect(visibleRows(0, 320, 3, 32, 8)).toEqual({ first: 0, last: 3 });
  });

  it("renders the same number of rows whatever the list's length", () => {
    const rendered = (count: number) => {
      const { first, last } = visibleRows(32 * 100, 448, count, 32);
      return last - first;
    };
    expect(rendered(1_000)).toBe(rendered(1_000_000));
  });
});

describe("scrollToShow", () => {
  it("scrolls up or down just enough, and not at all for a row in view", () => {
    expect(scrollToShow(10, 320, 320, 32)).toBe(320);
    expect(scrollToShow(5, 320, 320, 32)).toBe(160);
    expect(scrollToShow(25, 320, 320, 32)).toBe(32 * 26 - 320);
  });
});
