/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export const table = (headers: readonly string[], rows: readonly (readonly string[])[]): string => {
  const all = [headers, ...rows];
  const widths = headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${all.map(line).join("\n")}\n`;
};

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** A cell for a value that may be missing (the orchestrator left it out). */
export const cell = (value: string | number | boolean | null): string => (value === null || value === "" ? "-" : String(value));
