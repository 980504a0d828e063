import { geoNaturalEarth1, geoPath } from "d3-geo";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { feature, mesh } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
// The map is a file of the console (world-atlas's 1:110m countries), fetched from the service: no tile server, no CDN.
import countriesUrl from "world-atlas/countries-110m.json?url";
import type { Customer } from "@sdwan-connections/core/wire";
import { keyTarget } from "../list-keys.js";
import { MAX_ZOOM, pannedBy, spreadApart, WHOLE_WORLD, zoomedAt, type View } from "../map-view.js";
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
    const point =
      customer.latitude === null || customer.longitude === null
        ? null
        : projection([customer.longitude, customer.latitude]);
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
const radius = (count: number, mapWidth: number): number =>
  Math.min(mapWidth < 500 ? 10 : 14, 4 + 1.5 * Math.log(count));

/** How far a pointer moves before a press becomes a drag (and no longer a click on a mark). */
const DRAG_PX = 4;
const BUTTON_ZOOM = 2;

/**
 * Where the customers are: one mark per place (customers within a few screen
 * pixels of each other, whatever the map's size and zoom), sized by their
 * number; marks that would overlap are spread apart, a thin line to where
 * they stand. Clicking a mark shows its customers (the page decides how).
 * The map zooms and pans: the wheel, a pinch, a drag, and the +/− buttons.
 * With the keyboard the marks are one stop: arrows move from west to east
 * and back, Home and End jump, Enter or Space shows the mark.
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
    loadWorld().then(
      (loaded) => current && setDrawn(loaded),
      () => undefined,
    );
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
  const [view, setView] = useState<View>(WHOLE_WORLD);
  const pixels = scale * view.k; // screen pixels per map unit at this zoom
  const located = useMemo(() => locate(customers), [customers]);
  const places = useMemo(() => groupPlaces(located, GROUP_PX / pixels), [located, pixels]);
  // Where each mark is drawn (in the frame's units): at its place, seen through the view, then spread apart where marks overlap.
  const marks = useMemo(() => {
    const discs = places.map((place) => ({
      x: (place.x * view.k + view.x) * scale,
      y: (place.y * view.k + view.y) * scale,
      r: radius(place.items.length, WIDTH * scale),
    }));
    return spreadApart(discs).map((point, index) => ({
      x: point.x / scale,
      y: point.y / scale,
      r: discs[index]!.r / scale,
      from: { x: discs[index]!.x / scale, y: discs[index]!.y / scale },
    }));
  }, [places, view, scale]);
  // The keyboard's order: west to east (the drawing order is largest first).
  const westToEast = useMemo(
    () => places.map((_, index) => index).sort((a, b) => (places[a]?.x ?? 0) - (places[b]?.x ?? 0)),
    [places],
  );
  const [active, setActive] = useState(0); // a position in westToEast
  useEffect(() => setActive(0), [places]);
  const activePlace = westToEast[active];
  const selectedPoint =
    selected?.latitude != null && selected.longitude != null
      ? projection([selected.longitude, selected.latitude])
      : null;

  const onKeyDown = (event: KeyboardEvent): void => {
    const target = keyTarget(event.key, active, westToEast.length);
    if (target !== undefined) {
      event.preventDefault();
      setActive(target);
    } else if (
      (event.key === "Enter" || event.key === " ") &&
      activePlace !== undefined &&
      places[activePlace] !== undefined
    ) {
      event.preventDefault();
      onPlace(places[activePlace]);
    }
  };

  /** A point of the screen in the frame's units. */
  const inFrame = (clientX: number, clientY: number): [number, number] => {
    const box = svg.current!.getBoundingClientRect();
    return [((clientX - box.left) / box.width) * WIDTH, ((clientY - box.top) / box.height) * HEIGHT];
  };
  const zoomAt = (factor: number, cx = WIDTH / 2, cy = HEIGHT / 2): void =>
    setView((current) => zoomedAt(current, factor, cx, cy, WIDTH, HEIGHT));
  const onWheel = (event: WheelEvent): void => {
    event.preventDefault();
    zoomAt(Math.exp(-event.deltaY * 0.002), ...inFrame(event.clientX, event.clientY));
  };
  // The pointers down on the map: one drags, two pinch (zoom about their middle, and pan with it).
  const pointers = useRef(new Map<number, [number, number]>());
  const dragged = useRef(false);
  const onPointerDown = (event: PointerEvent): void => {
    pointers.current.set(event.pointerId, [event.clientX, event.clientY]);
    if (pointers.current.size === 1) dragged.current = false;
  };
  const onPointerMove = (event: PointerEvent): void => {
    const before = pointers.current.get(event.pointerId);
    if (before === undefined) return;
    const others = [...pointers.current].filter(([id]) => id !== event.pointerId).map(([, point]) => point);
    const now: [number, number] = [event.clientX, event.clientY];
    if (!dragged.current && Math.hypot(now[0] - before[0], now[1] - before[1]) < DRAG_PX) return;
    if (!dragged.current) {
      dragged.current = true;
      svg.current?.setPointerCapture(event.pointerId);
    }
    pointers.current.set(event.pointerId, now);
    const [[bx, by], [nx, ny]] = [inFrame(...before), inFrame(...now)];
    const other = others[0];
    if (other === undefined) {
      setView((current) => pannedBy(current, nx - bx, ny - by, WIDTH, HEIGHT));
      return;
    }
    const [ox, oy] = inFrame(...other);
    const factor = Math.hypot(nx - ox, ny - oy) / (Math.hypot(bx - ox, by - oy) || 1);
    setView((current) =>
      pannedBy(
        zoomedAt(current, factor, (bx + ox) / 2, (by + oy) / 2, WIDTH, HEIGHT),
        (nx - bx) / 2,
        (ny - by) / 2,
        WIDTH,
        HEIGHT,
      ),
    );
  };
  const onPointerEnd = (event: PointerEvent): void => {
    pointers.current.delete(event.pointerId);
  };

  const transform = `translate(${view.x} ${view.y}) scale(${view.k})`;
  return (
    <figure class={view.k > 1 ? "map zoomed" : "map"}>
      <div class="map-controls" role="group" aria-label="Zoom">
        <button type="button" aria-label="Zoom in" onClick={() => zoomAt(BUTTON_ZOOM)} disabled={view.k >= MAX_ZOOM}>
          +
        </button>
        <button type="button" aria-label="Zoom out" onClick={() => zoomAt(1 / BUTTON_ZOOM)} disabled={view.k <= 1}>
          −
        </button>
        <button type="button" onClick={() => setView(WHOLE_WORLD)} disabled={view.k <= 1}>
          Whole world
        </button>
        <span class="note" data-testid="zoom">
          {view.k <= 1 ? "" : `${Math.round(view.k * 10) / 10}×`}
        </span>
      </div>
      <svg
        ref={svg}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="group"
        aria-label={`World map: ${located.length} customers at ${places.length} places`}
        onWheel={onWheel}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerEnd}
        onPointerCancel={onPointerEnd}
      >
        <g transform={transform}>
          <path class="sphere" d={path({ type: "Sphere" }) ?? ""} />
          {drawn === undefined ? null : (
            <>
              <path class="land" d={drawn.land} />
              <path class="borders" d={drawn.borders} vector-effect="non-scaling-stroke" />
            </>
          )}
        </g>
        <g class="leaders" aria-hidden="true">
          {marks.map((mark, index) =>
            Math.hypot(mark.x - mark.from.x, mark.y - mark.from.y) * scale < 1 ? null : (
              <line key={index} x1={mark.from.x} y1={mark.from.y} x2={mark.x} y2={mark.y} />
            ),
          )}
        </g>
        {/* `tabindex` in lower case: Preact sets an SVG element's props as attributes, and SVG's are case-sensitive. */}
        <g
          class="places"
          role="listbox"
          aria-label="Places on the map"
          tabindex={places.length === 0 ? -1 : 0}
          aria-activedescendant={activePlace === undefined ? undefined : `place-${activePlace}`}
          onKeyDown={onKeyDown}
          onClick={(event) => {
            if (dragged.current) return; // the end of a drag, not a click on a mark
            const index = (event.target as Element).getAttribute("data-place");
            const place = index === null ? undefined : places[Number(index)];
            if (place !== undefined) onPlace(place);
          }}
        >
          {places.map((place, index) => {
            const mark = marks[index]!;
            const label = placeLabel(place);
            return (
              <g key={`${place.x},${place.y}`}>
                <circle
                  id={`place-${index}`}
                  role="option"
                  aria-label={label}
                  aria-selected={index === activePlace}
                  class={index === activePlace ? "active" : undefined}
                  data-place={index}
                  cx={mark.x}
                  cy={mark.y}
                  r={mark.r}
                >
                  <title>{label}</title>
                </circle>
                {place.items.length === 1 ? null : (
                  <text aria-hidden="true" x={mark.x} y={mark.y} font-size={9 / scale}>
                    {place.items.length}
                  </text>
                )}
              </g>
            );
          })}
        </g>
        {selectedPoint === null ? null : (
          <circle
            class="selected"
            cx={selectedPoint[0] * view.k + view.x}
            cy={selectedPoint[1] * view.k + view.y}
            r={8 / scale}
          />
        )}
      </svg>
      <figcaption>
        {located.length} of {customers.length} customers have a location. Click a mark, or focus the map and use the
        arrow keys and Enter, to see its customers. Zoom with the wheel, a pinch or the buttons; drag to move.
      </figcaption>
    </figure>
  );
};
