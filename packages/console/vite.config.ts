import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { defineConfig, type Plugin } from "vite";

/** Files worth compressing: text, above 1 KiB. */
const COMPRESSIBLE = /\.(js|css|json|svg|html)$/;
const MIN_BYTES = 1024;

/**
 * Writes a `.br` and a `.gz` beside each compressible file of the build, once,
 * at the strongest settings: the service sends them to clients that accept
 * them and never compresses a console file per request.
 */
const precompress = (): Plugin => ({
  name: "sdwan-precompress",
  apply: "build",
  async writeBundle(options, bundle) {
    const outDir = options.dir ?? "dist";
    for (const file of Object.values(bundle)) {
      const bytes = Buffer.from(file.type === "chunk" ? file.code : file.source);
      if (!COMPRESSIBLE.test(file.fileName) || bytes.length < MIN_BYTES) continue;
      await writeFile(
        join(outDir, `${file.fileName}.br`),
        brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      );
      await writeFile(join(outDir, `${file.fileName}.gz`), gzipSync(bytes, { level: 9 }));
    }
  },
});

/** The browser bundle: served by the REST service at /console/, so every URL is relative to it. */
export default defineConfig({
  base: "/console/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  plugins: [precompress()],
  build: {
    outDir: "dist",
    target: "es2022",
    // No inline script (the CSP forbids them) and no data: URLs: every asset is a file of its own.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
