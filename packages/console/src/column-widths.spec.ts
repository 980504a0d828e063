import { describe, expect, it } from "vitest";
import { columnTemplate } from "./column-widths.js";

// A font whose every character is 7 px wide, a bold one 8 px.
const measure = (text: string, bold: boolean) => text.length * (bold ? 8 : 7);

describe("columnTemplate", () => {
  it("gives each column its header's or its longest value's width, as its share of the grid", () => {
    expect(
      columnTemplate(
        [
          { header: "State", values: () => ["Bayern", "Comunidad de Madrid", "Ontario"] },
          { header: "Country", values: () => ["ES", "DE"] },
        ],
        measure,
        20,
      ),
    ).toEqual({
      template: `minmax(0, ${19 * 7 + 20}fr) minmax(0, ${7 * 8 + 20}fr)`,
      width: 19 * 7 + 20 + 7 * 8 + 20,
    });
  });

  it("measures a column's longest values only, however many there are", () => {
    const measured: string[] = [];
    const values = Array.from({ length: 10_000 }, (_, i) => "x".repeat(1 + (i % 50)));
    values[1234] = "the longest value of them all, longer than any of the others";
    columnTemplate(
      [{ header: "Name", values: () => values }],
      (text, bold) => (measured.push(text), measure(text, bold)),
      0,
    );
    expect(measured.length).toBeLessThanOrEqual(17);
    expect(measured).toContain("the longest value of them all, longer than any of the others");
  });
});
