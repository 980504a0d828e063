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
  it("fits the width when its columns are too wide together: the widest narrowed alike, their cells wrapped inside them", () => {
    const drawn = table(
      ["Alias", "Orchestrator URL", "Health", "Key renewal"],
      [
        ["cust-one-with-a-rather-long-alias-name", "https://vco.example.net/portal/", "valid", "off"],
        ["lab", "https://lab.example.net/", "unknown", "auto"],
      ],
      60,
    );
    expect(drawn).toBe(
      [
        "Alias               Orchestrator URL    Health   Key renewal",
        "cust-one-with-a-ra  https://vco.exampl  valid    off",
        "ther-long-alias-na  e.net/portal/",
        "me",
        "lab                 https://lab.exampl  unknown  auto",
        "                    e.net/",
        "",
      ].join("\n"),
    );
    for (const line of drawn.split("\n")) expect(line.length).toBeLessThanOrEqual(60);
  });

  it("never cuts a header inside a word, nor narrows a column below 6 characters: too narrow a terminal gets a wider table", () => {
    const drawn = table(["Orchestrator URL", "Key days left"], [["https://lab.example.net/", "12"]], 10);
    expect(drawn).toBe(
      ["Orchestrator  Key", "URL           days", "              left", "https://lab.  12", "example.net/", ""].join(
        "\n",
      ),
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
