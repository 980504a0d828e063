import express, { Router } from "express";

/** Where the browser console is served. */
export const CONSOLE_PATH = "/console";

// The console's own policy: every script, style and file from the service itself; no inline script or
// style attribute, no other origin, no framing. (The API's answers keep the stricter `default-src 'none'`.)
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

// Vite names the files under assets/ by their content: they never change, so browsers may keep them.
const IMMUTABLE = /[/\\]assets[/\\]/;

/**
 * The operator console's files (the console package's build), without
 * credentials: the page signs in against the API itself. `/console`
 * redirects to `/console/`; an unknown file falls through to the 404 problem.
 */
export const consoleRoutes = (directory: string): Router => {
  const router = Router();
  router.use(
    CONSOLE_PATH,
    (_req, res, next) => {
      res.setHeader("Content-Security-Policy", CONSOLE_CSP);
      next();
    },
    express.static(directory, {
      cacheControl: false,
      fallthrough: true,
      setHeaders: (res, path) => res.setHeader("Cache-Control", IMMUTABLE.test(path) ? "public, max-age=31536000, immutable" : "no-cache"),
    }),
  );
  return router;
};
