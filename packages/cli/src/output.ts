/** The widest a table is drawn when the terminal does not say its width. */
export const DEFAULT_WIDTH = 100;

/** Splits text into lines of at most `width` characters, at spaces where it can. */
export const wrap = (text: string, width: number): string[] => {
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

// The narrowest a column is made to fit the width: its header's longest word (a header is never cut inside a word),
// and at least 6 characters, or its widest cell when that is less.
const MIN_COLUMN = 6;

// Each column's width: its widest cell, or, when the table is wider than `width`, the widest columns narrowed one
// character at a time (so they end up alike) until it fits or every column is at its narrowest.
const fitted = (headers: readonly string[], natural: readonly number[], width: number): number[] => {
  const widths = [...natural];
  const floors = natural.map((most, column) =>
    Math.min(most, Math.max(MIN_COLUMN, ...(headers[column] ?? "").split(" ").map((word) => word.length))),
  );
  let over = widths.reduce((sum, columnWidth) => sum + columnWidth, 2 * (widths.length - 1)) - width;
  while (over > 0) {
    let widest = -1;
    for (const [column, columnWidth] of widths.entries())
      if (columnWidth > (floors[column] ?? 0) && (widest === -1 || columnWidth > (widths[widest] ?? 0)))
        widest = column;
    if (widest === -1) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
    over -= 1;
  }
  return widths;
};

/**
 * Columns padded to their widest cell, two spaces apart, under headers in words. The last column is not padded.
 * A table wider than `width` (the terminal's) narrows its widest columns, each cell too long for its column
 * wrapping inside it (at spaces where it can), continued on the next lines.
 */
export const table = (
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  width = DEFAULT_WIDTH,
): string => {
  const all = [headers, ...rows];
  const last = headers.length - 1;
  const widths = fitted(
    headers,
    headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length))),
    width,
  );
  const lines = (row: readonly string[]) => {
    const cells = headers.map((_, column) => wrap(row[column] ?? "", widths[column] ?? 0));
    const height = Math.max(...cells.map((cell) => cell.length));
    return Array.from({ length: height }, (_, line) =>
      cells
        .map((cell, column) => (column === last ? (cell[line] ?? "") : (cell[line] ?? "").padEnd(widths[column] ?? 0)))
        .join("  ")
        .trimEnd(),
    );
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
