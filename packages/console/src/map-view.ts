/**
 * The map's zoom and pan, as pure functions: a view `{k, x, y}` draws a map point `p` at
 * `p * k + (x, y)` (in the map's units). The map always covers its frame: zoom 1 to MAX_ZOOM,
 * and no pan past an edge.
 */
export interface View {
  readonly k: number;
  readonly x: number;
  readonly y: number;
}

export const WHOLE_WORLD: View = { k: 1, x: 0, y: 0 };
export const MAX_ZOOM = 32;

const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

/** `view` kept inside the frame of `width` × `height`. */
export const bounded = ({ k, x, y }: View, width: number, height: number): View => {
  const zoom = clamp(k, 1, MAX_ZOOM);
  return { k: zoom, x: clamp(x, width * (1 - zoom), 0), y: clamp(y, height * (1 - zoom), 0) };
};

/** Zoomed by `factor` around the frame's point (`cx`, `cy`), which stays where it is. */
export const zoomedAt = (view: View, factor: number, cx: number, cy: number, width: number, height: number): View => {
  const k = clamp(view.k * factor, 1, MAX_ZOOM);
  const ratio = k / view.k;
  return bounded({ k, x: cx - (cx - view.x) * ratio, y: cy - (cy - view.y) * ratio }, width, height);
};

/** Moved by (`dx`, `dy`) in the frame's units. */
export const pannedBy = (view: View, dx: number, dy: number, width: number, height: number): View =>
  bounded({ k: view.k, x: view.x + dx, y: view.y + dy }, width, height);

export interface Disc {
  readonly x: number;
  readonly y: number;
  readonly r: number;
}

/**
 * Marks that overlap moved apart until none does (at least `gap` between two), each pair pushed
 * along the line between their centres, half each; marks that overlap nothing stay where they
 * are. Coincident centres part along a direction of their own. Stops after `rounds`.
 */
export const spreadApart = (discs: readonly Disc[], gap = 1, rounds = 40): { x: number; y: number }[] => {
  const at = discs.map(({ x, y }) => ({ x, y }));
  for (let round = 0; round < rounds; round += 1) {
    let moved = false;
    for (let i = 0; i < at.length; i += 1) {
      for (let j = i + 1; j < at.length; j += 1) {
        const [a, b] = [at[i]!, at[j]!];
        const least = discs[i]!.r + discs[j]!.r + gap;
        let [dx, dy] = [b.x - a.x, b.y - a.y];
        let distance = Math.hypot(dx, dy);
        if (distance >= least) continue;
        if (distance === 0) {
          const angle = j * 2.399963; // the golden angle: coincident marks fan out
          [dx, dy, distance] = [Math.cos(angle), Math.sin(angle), 1];
        }
        const push = (least - distance) / 2 / distance + 1e-9;
        a.x -= dx * push;
        a.y -= dy * push;
        b.x += dx * push;
        b.y += dy * push;
        moved = true;
      }
    }
    if (!moved) break;
  }
  return at;
};
