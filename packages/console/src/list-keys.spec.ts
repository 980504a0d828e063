import { describe, expect, it } from "vitest";
import { keyTarget } from "./list-keys.js";

describe("keyTarget", () => {
  it("moves one step with the arrows, a page with Page Up and Down, to the ends with Home and End", () => {
    expect([
      keyTarget("ArrowDown", 5, 100),
      keyTarget("ArrowRight", 5, 100),
      keyTarget("ArrowUp", 5, 100),
      keyTarget("ArrowLeft", 5, 100),
    ]).toEqual([6, 6, 4, 4]);
    expect([keyTarget("PageDown", 5, 100, 10), keyTarget("PageUp", 50, 100, 10)]).toEqual([15, 40]);
    expect([keyTarget("Home", 50, 100), keyTarget("End", 5, 100)]).toEqual([0, 99]);
  });

  it("stays within the list, and ignores other keys", () => {
    expect([keyTarget("ArrowUp", 0, 100), keyTarget("ArrowDown", 99, 100), keyTarget("PageDown", 95, 100, 10)]).toEqual(
      [0, 99, 99],
    );
    expect(keyTarget("Enter", 5, 100)).toBeUndefined();
    expect(keyTarget("a", 5, 100)).toBeUndefined();
  });
});
