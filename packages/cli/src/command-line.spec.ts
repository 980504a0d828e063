import { describe, expect, it, vi } from "vitest";
import type * as Output from "./output.js";

const drawn = vi.hoisted(() => ({ tables: 0 }));
vi.mock("./output.js", async (original) => {
  const output = await original<typeof Output>();
  return {
    ...output,
    table: (...args: Parameters<typeof output.table>) => ((drawn.tables += 1), output.table(...args)),
  };
});

describe("the command line", () => {
  it("draws the overview only when it is asked for: a command's start draws no table (issue 40)", async () => {
    const { help, parseCommandLine } = await import("./command-line.js");
    expect(parseCommandLine(["list"])).toMatchObject({ right: { kind: "run" } });
    expect(drawn.tables).toBe(0);
    expect(help()).toContain("Commands:");
    expect(drawn.tables).toBe(1);
  });
});
