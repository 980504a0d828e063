import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Customer } from "@sdwan-connections/core/wire";
import { columnTemplate } from "../column-widths.js";
import { CUSTOMER_LABELS, type CustomerField, type Sort } from "../customers-view.js";
import { keyTarget } from "../list-keys.js";
import { scrollToShow, visibleRows } from "../virtual-window.js";

/** A row's height: one line where its columns fit; where they do not (a phone, a tablet), a card of a line per column (label: value). */
const ROW_HEIGHT = 32;
const STACKED_ROW_HEIGHT = 168;

const COLUMNS = (
  [
    "name",
    "id",
    "city",
    "state",
    "country",
    "bastionState",
    "accountNumber",
  ] as const satisfies readonly CustomerField[]
).map((field) => ({
  field,
  label: CUSTOMER_LABELS[field],
}));

// A cell's padding (0.6rem each side, styles.css), a sort arrow's room beside a header, and a pixel to spare.
const CELL_PADDING = 2 * 0.6 * 15 + 16;

/** A text's width in pixels in the page's font (bold: a header's), by a canvas that never joins the page. */
const measurer = (): ((text: string, bold: boolean) => number) => {
  const context = document.createElement("canvas").getContext("2d");
  const { fontSize, fontFamily } = getComputedStyle(document.body);
  return (text, bold) => {
    if (context === null) return text.length * 9;
    context.font = `${bold ? 600 : 400} ${fontSize} ${fontFamily}`;
    return context.measureText(text).width;
  };
};

/**
 * The customers as an ARIA grid that renders only the rows in view (and a
 * few around them), so 10,000 rows cost what 40 do. Keyboard: Tab reaches
 * the column headers (sort) and the grid; arrows, Page Up/Down, Home and
 * End move through the rows; Enter or Space shows the customer.
 */
export const CustomersTable = ({
  rows,
  sort,
  onSort,
  selected,
  onSelect,
}: {
  readonly rows: readonly Customer[];
  readonly sort: Sort | undefined;
  readonly onSort: (field: CustomerField) => void;
  readonly selected: Customer | undefined;
  readonly onSelect: (customer: Customer) => void;
}) => {
  const body = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(400);
  const [viewportWidth, setViewportWidth] = useState(Number.POSITIVE_INFINITY);
  const [active, setActive] = useState(0);

  // Each column as wide as its header and the longest value shown need (styles.css: .grid-row).
  const columns = useMemo(() => {
    const measure = measurer();
    return columnTemplate(
      COLUMNS.map(({ field, label }) => ({
        header: label,
        values: function* () {
          for (const row of rows) yield String(row[field] ?? "");
        },
      })),
      measure,
      CELL_PADDING,
    );
  }, [rows]);
  // Narrower than the columns need together (a phone, a tablet, a narrow window): each row a card, no value cut.
  const stacked = viewportWidth < columns.width;
  const rowHeight = stacked ? STACKED_ROW_HEIGHT : ROW_HEIGHT;

  useLayoutEffect(() => {
    const element = body.current;
    if (element === null) return;
    const observer = new ResizeObserver(() => {
      setViewportHeight(element.clientHeight);
      setViewportWidth(element.clientWidth);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // A new filter or order starts from the top.
  useEffect(() => {
    body.current?.scrollTo({ top: 0 });
    setScrollTop(0);
    setActive(0);
  }, [rows]);

  const moveTo = (index: number): void => {
    const element = body.current;
    if (element === null || rows.length === 0) return;
    setActive(index);
    element.scrollTop = scrollToShow(index, element.scrollTop, element.clientHeight, rowHeight);
  };
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.target !== event.currentTarget) return; // keys on the header buttons are theirs
    const target = keyTarget(event.key, active, rows.length, Math.max(1, Math.floor(viewportHeight / rowHeight) - 1));
    if (target !== undefined) {
      event.preventDefault();
      moveTo(target);
    } else if ((event.key === "Enter" || event.key === " ") && rows[active] !== undefined) {
      event.preventDefault();
      onSelect(rows[active]);
    }
  };

  const { first, last } = visibleRows(scrollTop, viewportHeight, rows.length, rowHeight);
  return (
    <div
      class={stacked ? "grid stacked" : "grid"}
      style={{ "--columns": columns.template }}
      role="grid"
      aria-label="Customers"
      aria-rowcount={rows.length + 1}
      aria-colcount={COLUMNS.length}
      tabIndex={0}
      aria-activedescendant={rows.length === 0 ? undefined : `customer-row-${active}`}
      onKeyDown={onKeyDown}
    >
      <div role="rowgroup" class="grid-head">
        <div role="row" aria-rowindex={1} class="grid-row">
          {COLUMNS.map(({ field, label }) => (
            <div role="columnheader" key={field} aria-sort={sort?.field === field ? sort.direction : "none"}>
              <button type="button" onClick={() => onSort(field)}>
                {label}
                <span aria-hidden="true">
                  {sort?.field === field ? (sort.direction === "ascending" ? " ▲" : " ▼") : ""}
                </span>
              </button>
            </div>
          ))}
        </div>
      </div>
      <div
        role="rowgroup"
        class="grid-body"
        ref={body}
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
      >
        <div class="grid-spacer" style={{ height: `${rows.length * rowHeight}px` }}>
          {rows.slice(first, last).map((customer, offset) => {
            const index = first + offset;
            return (
              <div
                role="row"
                key={customer.id}
                id={`customer-row-${index}`}
                aria-rowindex={index + 2}
                aria-selected={customer === selected}
                class={index === active ? "grid-row active" : "grid-row"}
                style={{ transform: `translateY(${index * rowHeight}px)`, height: `${rowHeight}px` }}
                onClick={() => {
                  setActive(index);
                  onSelect(customer);
                }}
              >
                {COLUMNS.map(({ field, label }) => (
                  <div role="gridcell" key={field} data-label={label}>
                    {String(customer[field] ?? "")}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
};
