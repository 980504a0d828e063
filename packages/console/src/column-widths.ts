/**
 * The customers grid's columns, each as wide as its header and its longest value need (measured in the page's font),
 * so that no value is cut short, whatever the data (a fixed layout cut "Comunidad de Madrid" while two-letter
 * countries had room to spare). As CSS `grid-template-columns`, each column's share of the width in proportion to its
 * need, and the width they need together: a grid narrower than that shows its rows as cards (customers-table.tsx).
 */

/** How many of a column's longest values (by characters) are measured: the widest is among them but for rare fonts. */
const MEASURED = 16;

/** `values`' longest `count`, by characters, in one pass. */
const longestOf = (values: Iterable<string>, count: number): string[] => {
  const kept: string[] = [];
  for (const value of values) {
    if (kept.length === count && value.length <= (kept.at(-1)?.length ?? 0)) continue;
    let at = kept.length;
    while (at > 0 && (kept[at - 1]?.length ?? 0) < value.length) at -= 1;
    kept.splice(at, 0, value);
    if (kept.length > count) kept.pop();
  }
  return kept;
};

/**
 * `grid-template-columns` for `columns` (a header each, and its values in the rows): `measure` answers a text's width
 * in pixels (bold for a header), `padding` what a cell adds around it.
 */
export const columnTemplate = (
  columns: readonly { readonly header: string; readonly values: () => Iterable<string> }[],
  measure: (text: string, bold: boolean) => number,
  padding: number,
): { readonly template: string; readonly width: number } => {
  const needs = columns.map(({ header, values }) =>
    Math.ceil(
      Math.max(measure(header, true), ...longestOf(values(), MEASURED).map((value) => measure(value, false))) + padding,
    ),
  );
  return {
    template: needs.map((need) => `minmax(0, ${need}fr)`).join(" "),
    width: needs.reduce((sum, need) => sum + need, 0),
  };
};
