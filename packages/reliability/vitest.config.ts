import { mergeConfig } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.js";

/** Files run one after another: each drives a service process hard, and two cores are enough for one. */
export default mergeConfig(sharedConfig, { test: { fileParallelism: false } });
