import { useEffect, useMemo, useState } from "preact/hooks";
import { Customer } from "@sdwan-connections/core/wire";
import { getJsonInSlices } from "../api.js";
import { CustomersTable } from "../components/customers-table.js";
import { ProblemMessage } from "../components/problem.js";
import { WorldMap, type CustomerPlace } from "../components/world-map.js";
import {
  CUSTOMER_LABELS,
  customerValue,
  filterCustomers,
  indexCustomers,
  nextSort,
  sortCustomers,
  type Sort,
} from "../customers-view.js";
import { placeLabel } from "../places.js";
import { href } from "../router.js";
import { useSession } from "../session.js";
import { useLoad } from "../use-load.js";

/** The customers read so far: the first screenful while the rest arrive and are decoded, then all. */
interface Listing {
  readonly customers: readonly Customer[];
  readonly complete: boolean;
}

const CustomerFacts = ({ customer }: { readonly customer: Customer }) => (
  <dl class="facts">
    {Object.entries(CUSTOMER_LABELS).map(([field, label]) => [
      <dt key={`${field}-name`}>{label}</dt>,
      <dd key={`${field}-value`}>{customerValue(customer[field as keyof Customer])}</dd>,
    ])}
  </dl>
);

/** A partner's customers: a filter, a sortable virtualised table, a world map, and the chosen customer. */
export const CustomersPage = ({ alias }: { readonly alias: string }) => {
  const session = useSession();
  // The first rows are shown as soon as they are decoded; filter, sort and the map wait for the whole list.
  const [loaded, reload] = useLoad<Listing>(
    (early, current) =>
      getJsonInSlices(
        session.authorization,
        `/partner/${encodeURIComponent(alias)}/customers`,
        Customer,
        (first) => early({ customers: first, complete: false }),
        current,
      ).then((customers) => ({ customers, complete: true })),
    [session, alias],
  );
  const listing = loaded.state === "ready" ? loaded.value : undefined;
  const complete = listing?.complete === true;
  const indexed = useMemo(() => (complete ? indexCustomers(listing.customers) : []), [listing]);
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<Sort | undefined>(undefined);
  const filtered = useMemo(
    () => (complete ? filterCustomers(indexed, filter) : (listing?.customers ?? [])),
    [indexed, filter, listing],
  );
  // The map gets the filtered list, not the sorted one: a new order moves no point, so it does not redraw.
  const rows = useMemo(() => (complete ? sortCustomers(filtered, sort) : filtered), [filtered, sort]);
  const [selected, setSelected] = useState<Customer | undefined>(undefined);
  const [place, setPlace] = useState<CustomerPlace | undefined>(undefined);
  // A new filter forgets a chosen place (its marks are drawn anew) and a chosen customer it hides: no stale panel.
  useEffect(() => {
    setPlace(undefined);
    setSelected((current) => (current !== undefined && filtered.includes(current) ? current : undefined));
  }, [filtered]);

  const choosePlace = (chosen: CustomerPlace): void => {
    setPlace(chosen.items.length > 1 ? chosen : undefined);
    setSelected(chosen.items.length === 1 ? chosen.items[0] : undefined);
  };

  return (
    <>
      <div class="toolbar">
        <h1 tabIndex={-1}>Customers of {alias}</h1>
        <a class="button" href={href({ page: "connection", alias })}>
          Back to {alias}
        </a>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      {loaded.state === "loading" ? <p aria-live="polite">Loading customers…</p> : null}
      {loaded.state === "failed" ? <ProblemMessage problem={loaded.problem} /> : null}
      {loaded.state === "ready" ? (
        <div class="customers">
          <WorldMap customers={complete ? filtered : []} selected={selected} onPlace={choosePlace} />
          <section class="chosen" aria-label="Chosen customer" aria-live="polite">
            <h2>{selected?.name ?? (place === undefined ? "No customer chosen" : placeLabel(place))}</h2>
            {selected !== undefined ? <CustomerFacts customer={selected} /> : null}
            {selected === undefined && place !== undefined ? (
              <ul class="place-list">
                {place.items.map((customer) => (
                  <li key={customer.id}>
                    <button type="button" class="link" onClick={() => setSelected(customer)}>
                      {customer.name}
                    </button>
                  </li>
                ))}
              </ul>
            ) : null}
            {selected === undefined && place === undefined ? (
              <p>Click a mark on the map, or a row of the table.</p>
            ) : null}
          </section>
          <div class="table-area">
            <div class="toolbar">
              <label for="customer-filter">Filter customers</label>
              <input
                id="customer-filter"
                type="search"
                value={filter}
                onInput={(event) => setFilter(event.currentTarget.value)}
                placeholder="name, city, country…"
                disabled={!complete}
              />
              <span role="status">
                {!complete
                  ? `The first ${rows.length} customers; reading the rest…`
                  : rows.length === indexed.length
                    ? `${indexed.length} customers`
                    : rows.length === 0
                      ? `No customer matches “${filter.trim()}” (of ${indexed.length})`
                      : `${rows.length} of ${indexed.length} customers`}
              </span>
            </div>
            <CustomersTable
              rows={rows}
              sort={sort}
              onSort={(field) => setSort(nextSort(sort, field))}
              selected={selected}
              onSelect={setSelected}
            />
          </div>
        </div>
      ) : null}
    </>
  );
};
