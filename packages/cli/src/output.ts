/** The widest a table is drawn when the terminal does not say its width. */
export const DEFAULT_WIDTH = 100;

// Splits text into lines of at most `width` characters, at spaces where it can.
const wrap = (text: string, width: number): string[] => {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const space = rest.lastIndexOf(" ", width);
    const cut = space > 0 ? space : width;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  return rest === "" ? lines : [...lines, rest];
};

/**
 * Columns padded to their widest cell, two spaces apart, under headers in words. The last column is
 * not padded; a value too long for what is left of `width` wraps inside it, continued on the next lines.
 */
export const table = (
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  width = DEFAULT_WIDTH,
): string => {
  const all = [headers, ...rows];
  const last = headers.length - 1;
  const widths = headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length)));
  const indent = widths.slice(0, last).reduce((sum, columnWidth) => sum + columnWidth + 2, 0);
  const lastWidth = Math.max(20, width - indent);
  const lines = (row: readonly string[]) => {
    const [first = "", ...more] = wrap(row[last] ?? "", lastWidth);
    const head = row
      .slice(0, last)
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .concat(first)
      .join("  ")
      .trimEnd();
    return [head, ...more.map((line) => `${" ".repeat(indent)}${line}`)];
  };
  return `${all.flatMap(lines).join("\n")}\n`;
};

/** One record as `Label  value` lines (a long value wraps under itself): for a single connection or answer. */
export const record = (fields: readonly (readonly [string, string])[], width = DEFAULT_WIDTH): string =>
  table(["", ""], fields, width).split("\n").slice(1).join("\n");

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** A cell for a value that may be missing (the orchestrator left it out); a time as the service writes it. */
export const cell = (value: string | number | boolean | Date | null | undefined): string =>
  value === null || value === undefined || value === ""
    ? "-"
    : typeof value === "boolean"
      ? value
        ? "yes"
        : "no"
      : value instanceof Date
        ? value.toISOString()
        : String(value);
