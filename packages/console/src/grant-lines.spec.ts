import { describe, expect, it } from "vitest";
import { parseGrantLines } from "./grant-lines.js";

describe("a new token's grants, one per line", () => {
  it("reads PATTERN VERB lines, skipping blank ones and extra spaces", () => {
    expect(parseGrantLines("emea-* read\n\n  lab-1   manage  \r\nEMEA-PARIS use")).toEqual({
      grants: [
        { pattern: "emea-*", verb: "read" },
        { pattern: "lab-1", verb: "manage" },
        { pattern: "EMEA-PARIS", verb: "use" },
      ],
    });
    expect(parseGrantLines("")).toEqual({ grants: [] });
  });

  it("names the first line it cannot read: a verb unknown or missing, or a word too many", () => {
    expect(parseGrantLines("emea-* read\nlab-* write")).toEqual({ badLine: 2 });
    expect(parseGrantLines("\nlab-*")).toEqual({ badLine: 2 });
    expect(parseGrantLines("lab-* use now")).toEqual({ badLine: 1 });
  });
});
