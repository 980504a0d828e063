import { geoNaturalEarth1, geoPath } from "d3-geo";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { feature, mesh } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
// The map is a file of the console (world-atlas's 1:110m countries), fetched from the service: no tile server, no CDN.
import countriesUrl from "world-atlas/countries-110m.json?url";
import type { Customer } from "../api.js";
import { keyTarget } from "../list-keys.js";
import { groupPlaces, placeLabel, type Located, type Place } from "../places.js";

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

/** Customers on the screen within this many pixels of each other are one mark. */
const GROUP_PX = 4;

export type CustomerPlace = Place<Customer>;

const locate = (customers: readonly Customer[]): readonly Located<Customer>[] =>
  customers.flatMap((customer) => {
    const point = customer.latitude === null || customer.longitude === null ? null : projection([customer.longitude, customer.latitude]);
    return point === null ? [] : [{ x: point[0], y: point[1], item: customer }];
  });

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

/**
 * A mark's radius in screen pixels: 4 for one customer, growing with the
 * logarithm of their number, up to 14 (10 on a map narrower than 500 px, a
 * phone's, where neighbouring cities are closer).
 */
const radius = (count: number, mapWidth: number): number => Math.min(mapWidth < 500 ? 10 : 14, 4 + 1.5 * Math.log(count));

/**
 * Where the customers are: one mark per place (customers within a few screen
 * pixels of each other, whatever the map's size), sized by their number.
 * Clicking a mark shows its customers (the page decides how). With the
 * keyboard the marks are one stop: arrows move from west to east and back,
 * Home and End jump, Enter or Space shows the mark.
 */
export const WorldMap = ({
  customers,
  selected,
  onPlace,
}: {
  readonly customers: readonly Customer[];
  readonly selected: Customer | undefined;
  readonly onPlace: (place: CustomerPlace) => void;
}) => {
  const [drawn, setDrawn] = useState<World | undefined>(undefined);
  useEffect(() => {
    let current = true;
    loadWorld().then((loaded) => current && setDrawn(loaded), () => undefined);
    return () => {
      current = false;
    };
  }, []);
  // Screen pixels per unit of the map: marks keep their size on the screen, and group by screen distance, on a phone as on a desktop.
  const svg = useRef<SVGSVGElement>(null);
  const [scale, setScale] = useState(1);
  useLayoutEffect(() => {
    const element = svg.current;
    if (element === null) return;
    const observer = new ResizeObserver(() => setScale(element.getBoundingClientRect().width / WIDTH || 1));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const located = useMemo(() => locate(customers), [customers]);
  const places = useMemo(() => groupPlaces(located, GROUP_PX / scale), [located, scale]);
  // The keyboard's order: west to east (the drawing order is largest first).
  const westToEast = useMemo(() => places.map((_, index) => index).sort((a, b) => (places[a]?.x ?? 0) - (places[b]?.x ?? 0)), [places]);
  const [active, setActive] = useState(0); // a position in westToEast
  useEffect(() => setActive(0), [places]);
  const activePlace = westToEast[active];
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
      <svg ref={svg} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="group" aria-label={`World map: ${located.length} customers at ${places.length} places`}>
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
          {places.map((place, index) => {
            const [label, r] = [placeLabel(place), radius(place.items.length, WIDTH * scale) / scale];
            return (
              <g key={`${place.x},${place.y}`}>
                <circle
                  id={`place-${index}`}
                  role="option"
                  aria-label={label}
                  aria-selected={index === activePlace}
                  class={index === activePlace ? "active" : undefined}
                  data-place={index}
                  cx={place.x}
                  cy={place.y}
                  r={r}
                >
                  <title>{label}</title>
                </circle>
                {place.items.length === 1 ? null : (
                  <text aria-hidden="true" x={place.x} y={place.y} font-size={9 / scale}>
                    {place.items.length}
                  </text>
                )}
              </g>
            );
          })}
        </g>
        {selectedPoint === null ? null : <circle class="selected" cx={selectedPoint[0]} cy={selectedPoint[1]} r={8 / scale} />}
      </svg>
      <figcaption>
        {located.length} of {customers.length} customers have a location. Click a mark, or focus the map and use the arrow keys and Enter, to see its customers.
      </figcaption>
    </figure>
  );
};
