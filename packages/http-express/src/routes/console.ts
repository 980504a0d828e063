import { extname } from "node:path";
import express, { type RequestHandler, type Router } from "express";

/** Where the browser console is served. */
export const CONSOLE_PATH = "/console";

// The console's own policy: every script, style and file from the service itself; no inline script or
// style attribute, no other origin (but the OpenID provider's, for the discovery and token requests of its
// sign-in), no framing. (The API's answers keep the stricter `default-src 'none'`.)
const consolePolicy = (providerOrigin: string | undefined): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    providerOrigin === undefined ? "connect-src 'self'" : `connect-src 'self' ${providerOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

// Vite names the files under assets/ by their content: they never change, so browsers may keep them.
const IMMUTABLE = /[/\\]assets[/\\]/;

const cacheControlOf = (path: string): string =>
  IMMUTABLE.test(path) ? "public, max-age=31536000, immutable" : "no-cache";

// The files the console's build writes `.br` and `.gz` twins of (when above 1 KiB).
const COMPRESSIBLE = /\.(js|css|json|svg|html)$/;

/**
 * A file's `.br` or `.gz` twin to a client that accepts it; anything else, a
 * missing twin included, goes on to the files as they are. `root` keeps the
 * path inside the directory.
 */
const precompressed =
  (directory: string): RequestHandler =>
  (req, res, next) => {
    if (!COMPRESSIBLE.test(req.path)) {
      next();
      return;
    }
    res.setHeader("Vary", "Accept-Encoding");
    const accepted = req.acceptsEncodings("br", "gzip", "identity");
    if (accepted !== "br" && accepted !== "gzip") {
      next();
      return;
    }
    res.type(extname(req.path));
    res.setHeader("Content-Encoding", accepted);
    res.setHeader("Cache-Control", cacheControlOf(req.path));
    res.sendFile(
      `.${req.path}.${accepted === "br" ? "br" : "gz"}`,
      { root: directory, cacheControl: false, dotfiles: "deny" },
      (error) => {
        if (error === undefined || res.headersSent) return;
        res.removeHeader("Content-Encoding"); // no twin: the file as it is
        next();
      },
    );
  };

/**
 * The operator console's files (the console package's build), without
 * credentials: the page signs in against the API itself, or at the OpenID
 * provider whose origin is `providerOrigin`. `/console` redirects to
 * `/console/`; an unknown file falls through to the 404 problem. Added to the
 * app's own router under CONSOLE_PATH: an API request enters no router for them.
 */
export const consoleRoutes = (router: Router, directory: string, providerOrigin?: string): void => {
  const policy = consolePolicy(providerOrigin);
  router.use(
    CONSOLE_PATH,
    (_req, res, next) => {
      res.setHeader("Content-Security-Policy", policy);
      next();
    },
    precompressed(directory),
    express.static(directory, {
      cacheControl: false,
      setHeaders: (res, path) => res.setHeader("Cache-Control", cacheControlOf(path)),
    }),
  );
};
