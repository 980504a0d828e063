import { useEffect, useState } from "preact/hooks";

/** A narrow screen (a phone, a small tablet): wide tables become stacked rows. The stylesheet uses the same width. */
export const NARROW = "(max-width: 48rem)";

/** Whether the media query matches, following changes (a rotated phone, a resized window). */
export const useMediaQuery = (query: string): boolean => {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const follow = (): void => setMatches(list.matches);
    follow();
    list.addEventListener("change", follow);
    return () => list.removeEventListener("change", follow);
  }, [query]);
  return matches;
};
