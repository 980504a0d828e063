import { fileURLToPath, URL } from "node:url";

/** The console's built files (index.html and its hashed assets), for the REST service to serve at /console/. */
export const CONSOLE_DIRECTORY = fileURLToPath(new URL("./dist/", import.meta.url));
