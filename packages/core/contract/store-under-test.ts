import { afterAll, beforeEach } from "vitest";

/** What every contract suite over a store is given beside its factory. */
export interface StoreUnderTest {
  /** Empties the store before each test. */
  reset(): Promise<void>;
  /** Releases what the suite opened, after it. */
  close?(): Promise<void>;
}

/** Inside a contract suite's `describe`: the store is emptied before each test and released after the last. */
export const useStoreUnderTest = (store: StoreUnderTest): void => {
  beforeEach(async () => {
    await store.reset();
  });
  afterAll(async () => {
    await store.close?.();
  });
};
