import { defineConfig } from "vite";

/** The browser bundle: served by the REST service at /console/, so every URL is relative to it. */
export default defineConfig({
  base: "/console/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "dist",
    target: "es2022",
    // No inline script (the CSP forbids them) and no data: URLs: every asset is a file of its own.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
