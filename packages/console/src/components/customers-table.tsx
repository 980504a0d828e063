import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Customer } from "../api.js";
import type { CustomerField, Sort } from "../customers-view.js";
import { keyTarget } from "../list-keys.js";
import { scrollToShow, visibleRows } from "../virtual-window.js";

const ROW_HEIGHT = 32;

const COLUMNS: readonly { readonly field: CustomerField; readonly label: string }[] = [
  { field: "name", label: "Name" },
  { field: "id", label: "ID" },
  { field: "city", label: "City" },
  { field: "state", label: "State" },
  { field: "country", label: "Country" },
  { field: "bastionState", label: "Bastion state" },
  { field: "accountNumber", label: "Account" },
];

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
  const [active, setActive] = useState(0);

  useLayoutEffect(() => {
    const element = body.current;
    if (element === null) return;
    const observer = new ResizeObserver(() => setViewportHeight(element.clientHeight));
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
    element.scrollTop = scrollToShow(index, element.scrollTop, element.clientHeight, ROW_HEIGHT);
  };
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.target !== event.currentTarget) return; // keys on the header buttons are theirs
    const target = keyTarget(event.key, active, rows.length, Math.max(1, Math.floor(viewportHeight / ROW_HEIGHT) - 1));
    if (target !== undefined) {
      event.preventDefault();
      moveTo(target);
    } else if ((event.key === "Enter" || event.key === " ") && rows[active] !== undefined) {
      event.preventDefault();
      onSelect(rows[active]);
    }
  };

  const { first, last } = visibleRows(scrollTop, viewportHeight, rows.length, ROW_HEIGHT);
  return (
    <div
      class="grid"
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
                <span aria-hidden="true">{sort?.field === field ? (sort.direction === "ascending" ? " ▲" : " ▼") : ""}</span>
              </button>
            </div>
          ))}
        </div>
      </div>
      <div role="rowgroup" class="grid-body" ref={body} onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}>
        <div class="grid-spacer" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>
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
                style={{ transform: `translateY(${index * ROW_HEIGHT}px)` }}
                onClick={() => {
                  setActive(index);
                  onSelect(customer);
                }}
              >
                {COLUMNS.map(({ field }) => (
                  <div role="gridcell" key={field}>
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
