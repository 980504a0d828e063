/** The connections whose alias or URL contains every word of `search` (any case), in their order. */
export const filterConnections = <C extends { readonly alias: string; readonly orchestratorUrl: string }>(
  connections: readonly C[],
  search: string,
): readonly C[] => {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  return words.length === 0
    ? connections
    : connections.filter(({ alias, orchestratorUrl }) => {
        const text = `${alias}\u0000${orchestratorUrl}`.toLowerCase();
        return words.every((word) => text.includes(word));
      });
};
