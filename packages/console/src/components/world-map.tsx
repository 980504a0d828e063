import { geoNaturalEarth1, geoPath } from "d3-geo";
import { useEffect, useMemo, useState } from "preact/hooks";
import { feature, mesh } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
// The map is a file of the console (world-atlas's 1:110m countries), fetched from the service: no tile server, no CDN.
import countriesUrl from "world-atlas/countries-110m.json?url";
import type { Customer } from "../api.js";
import { keyTarget } from "../list-keys.js";

const WIDTH = 960;
const HEIGHT = 500;
const projection = geoNaturalEarth1().fitExtent(
  [
    [4, 4],
    [WIDTH - 4, HEIGHT - 4],
  ],
  { type: "Sphere" },
);
const path = geoPath(projection);

/** Customers drawn as one point: those within two pixels of each other on the map. */
export interface Place {
  readonly x: number;
  readonly y: number;
  readonly customers: readonly Customer[];
}

const placesOf = (customers: readonly Customer[]): readonly Place[] => {
  const places = new Map<string, { x: number; y: number; customers: Customer[] }>();
  for (const customer of customers) {
    if (customer.latitude === null || customer.longitude === null) continue;
    const point = projection([customer.longitude, customer.latitude]);
    if (point === null) continue;
    const key = `${Math.round(point[0] / 2)},${Math.round(point[1] / 2)}`;
    const place = places.get(key);
    if (place === undefined) places.set(key, { x: point[0], y: point[1], customers: [customer] });
    else place.customers.push(customer);
  }
  // The largest first, so that a small place drawn over a large one stays clickable.
  return [...places.values()].sort((a, b) => b.customers.length - a.customers.length);
};

interface World {
  readonly land: string;
  readonly borders: string;
}

let world: Promise<World> | undefined;
const loadWorld = (): Promise<World> =>
  (world ??= fetch(countriesUrl)
    .then((response) => response.json() as Promise<Topology<{ countries: GeometryCollection }>>)
    .then((topology) => ({
      land: path(feature(topology, topology.objects.countries)) ?? "",
      borders: path(mesh(topology, topology.objects.countries, (a, b) => a !== b)) ?? "",
    })));

const radius = (count: number): number => Math.min(14, 3 + Math.sqrt(count));

const placeLabel = (place: Place): string =>
  place.customers.length === 1 ? (place.customers[0]?.name ?? "") : `${place.customers.length} customers, ${place.customers[0]?.city ?? ""}`;

/**
 * Where the customers are. Clicking a point shows its customers (the page
 * decides how). With the keyboard the points are one stop: arrows move from
 * west to east and back, Home and End jump, Enter or Space shows the point.
 */
export const WorldMap = ({
  customers,
  selected,
  onPlace,
}: {
  readonly customers: readonly Customer[];
  readonly selected: Customer | undefined;
  readonly onPlace: (place: Place) => void;
}) => {
  const [drawn, setDrawn] = useState<World | undefined>(undefined);
  useEffect(() => {
    let current = true;
    loadWorld().then((loaded) => current && setDrawn(loaded), () => undefined);
    return () => {
      current = false;
    };
  }, []);
  const places = useMemo(() => placesOf(customers), [customers]);
  // The keyboard's order: west to east (the drawing order is largest first).
  const westToEast = useMemo(() => places.map((_, index) => index).sort((a, b) => (places[a]?.x ?? 0) - (places[b]?.x ?? 0)), [places]);
  const [active, setActive] = useState(0); // a position in westToEast
  useEffect(() => setActive(0), [places]);
  const activePlace = westToEast[active];
  const located = places.reduce((sum, place) => sum + place.customers.length, 0);
  const selectedPoint = selected?.latitude != null && selected.longitude != null ? projection([selected.longitude, selected.latitude]) : null;

  const onKeyDown = (event: KeyboardEvent): void => {
    const target = keyTarget(event.key, active, westToEast.length);
    if (target !== undefined) {
      event.preventDefault();
      setActive(target);
    } else if ((event.key === "Enter" || event.key === " ") && activePlace !== undefined && places[activePlace] !== undefined) {
      event.preventDefault();
      onPlace(places[activePlace]);
    }
  };

  return (
    <figure class="map">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="group" aria-label={`World map: ${located} customers at ${places.length} places`}>
        <path class="sphere" d={path({ type: "Sphere" }) ?? ""} />
        {drawn === undefined ? null : (
          <>
            <path class="land" d={drawn.land} />
            <path class="borders" d={drawn.borders} />
          </>
        )}
        {/* `tabindex` in lower case: Preact sets an SVG element's props as attributes, and SVG's are case-sensitive. */}
        <g
          class="places"
          role="listbox"
          aria-label="Places on the map"
          tabindex={places.length === 0 ? -1 : 0}
          aria-activedescendant={activePlace === undefined ? undefined : `place-${activePlace}`}
          onKeyDown={onKeyDown}
          onClick={(event) => {
            const index = (event.target as Element).getAttribute("data-place");
            const place = index === null ? undefined : places[Number(index)];
            if (place !== undefined) onPlace(place);
          }}
        >
          {places.map((place, index) => (
            <circle
              key={`${place.x},${place.y}`}
              id={`place-${index}`}
              role="option"
              aria-label={placeLabel(place)}
              aria-selected={index === activePlace}
              class={index === activePlace ? "active" : undefined}
              data-place={index}
              cx={place.x}
              cy={place.y}
              r={radius(place.customers.length)}
            >
              <title>{placeLabel(place)}</title>
            </circle>
          ))}
        </g>
        {selectedPoint === null ? null : <circle class="selected" cx={selectedPoint[0]} cy={selectedPoint[1]} r={8} />}
      </svg>
      <figcaption>
        {located} of {customers.length} customers have a location. Click a point, or focus the map and use the arrow keys and Enter, to see its customers.
      </figcaption>
    </figure>
  );
};
