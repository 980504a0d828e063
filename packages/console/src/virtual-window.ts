/** The rows to render for a scroll position: the visible ones and `overscan` more on each side. */
export const visibleRows = (
  scrollTop: number,
  viewportHeight: number,
  rowCount: number,
  rowHeight: number,
  overscan = 8,
): { readonly first: number; readonly last: number } => ({
  first: Math.max(0, Math.floor(scrollTop / rowHeight) - overscan),
  last: Math.min(rowCount, Math.ceil((scrollTop + viewportHeight) / rowHeight) + overscan),
});

/** The scroll position that brings row `index` into view, moving as little as possible. */
export const scrollToShow = (index: number, scrollTop: number, viewportHeight: number, rowHeight: number): number => {
  const top = index * rowHeight;
  if (top < scrollTop) return top;
  const bottom = top + rowHeight;
  return bottom > scrollTop + viewportHeight ? bottom - viewportHeight : scrollTop;
};
