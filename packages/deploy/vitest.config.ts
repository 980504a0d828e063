import { mergeConfig } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.js";

/** The shared setup; files run one after another (the rehearsal starts several containers on two cores). */
export default mergeConfig(sharedConfig, {
  test: { fileParallelism: false },
});
