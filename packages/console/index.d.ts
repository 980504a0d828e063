/** The console's built files (index.html and its hashed assets), for the REST service to serve at /console/. */
export declare const CONSOLE_DIRECTORY: string;
