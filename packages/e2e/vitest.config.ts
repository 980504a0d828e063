import { mergeConfig } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.js";

/**
 * The shared setup, plus: the service image is built once per run before any
 * file starts (test/global-setup.ts), and files run one after another (each
 * starts several containers; two cores are enough for one file at a time).
 */
export default mergeConfig(sharedConfig, {
  test: {
    globalSetup: ["./test/global-setup.ts"],
    fileParallelism: false,
  },
});
