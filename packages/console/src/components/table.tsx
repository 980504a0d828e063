import type { VNode } from "preact";

/** A table of items, a row each, its column headers in words; it stacks into cards on a narrow screen. */
export const Table = <A,>({
  caption,
  columns,
  items,
  row,
}: {
  /** Said to screen readers, not shown. */
  readonly caption: string;
  readonly columns: readonly string[];
  readonly items: readonly A[];
  readonly row: (item: A) => VNode;
}) => (
  <table class="stacks">
    <caption class="visually-hidden">{caption}</caption>
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
      </tr>
    </thead>
    <tbody>{items.map(row)}</tbody>
  </table>
);
