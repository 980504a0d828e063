/**
 * Where a navigation key moves the active item of a list of `count` items:
 * arrows one step (down and right forward), Page Up and Down `page` steps,
 * Home and End to the ends, never past them; undefined for any other key.
 */
export const keyTarget = (key: string, active: number, count: number, page = 1): number | undefined => {
  const moves: Readonly<Record<string, number>> = {
    ArrowDown: active + 1,
    ArrowRight: active + 1,
    ArrowUp: active - 1,
    ArrowLeft: active - 1,
    PageDown: active + page,
    PageUp: active - page,
    Home: 0,
    End: count - 1,
  };
  const target = moves[key];
  return target === undefined ? undefined : Math.min(count - 1, Math.max(0, target));
};
