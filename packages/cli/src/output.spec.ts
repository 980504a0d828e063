import { describe, expect, it } from "vitest";
import { record, table } from "./output.js";

describe("table", () => {
  it("aligns every column to its widest cell, without trailing spaces", () => {
    expect(
      table(
        ["Alias", "URL"],
        [
          ["lab", "https://a.example.net/"],
          ["production-east", "https://b.example.net/"],
        ],
      ),
    ).toBe(
      [
        "Alias            URL",
        "lab              https://a.example.net/",
        "production-east  https://b.example.net/",
        "",
      ].join("\n"),
    );
  });

  it("wraps a long last cell inside its column, at spaces where it can", () => {
    expect(table(["Alias", "Reason"], [["lab", "the orchestrator did not answer within 10000 ms"]], 30)).toBe(
      ["Alias  Reason", "lab    the orchestrator did", "       not answer within 10000", "       ms", ""].join("\n"),
    );
  });
});

describe("record", () => {
  it("shows one answer as labelled lines", () => {
    expect(
      record([
        ["Alias", "lab"],
        ["Orchestrator URL", "https://a.example.net/"],
      ]),
    ).toBe("Alias             lab\nOrchestrator URL  https://a.example.net/\n");
  });
});
