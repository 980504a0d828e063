import { describe, expect, it } from "vitest";
import { table } from "./output.js";

describe("table", () => {
  it("aligns every column to its widest cell, without trailing spaces", () => {
    expect(table(["ALIAS", "URL"], [["lab", "https://a.example.net/"], ["production-east", "https://b.example.net/"]])).toBe(
      ["ALIAS            URL", "lab              https://a.example.net/", "production-east  https://b.example.net/", ""].join("\n"),
    );
  });
});
