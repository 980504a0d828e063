#!/usr/bin/env node
/**
 * The command-line driver's process: the same use cases, store and
 * configuration (SDWAN_* environment variables) as the REST service.
 */
import { standardOutput } from "./standard-output.js";

// The bundle's help texts (`staticHelp`, made at build time): undefined where the sources run (tsx, tests). Parsed
// only when a help text is asked for: every other command would parse its 20 kB for nothing (2% of list's instructions).
declare const SDWAN_STATIC_HELP: string | undefined;
const helpTexts = (): Readonly<Record<string, string>> =>
  typeof SDWAN_STATIC_HELP === "string" ? (JSON.parse(SDWAN_STATIC_HELP) as Record<string, string>) : {};

// `--help`, `--version` and `<command> --help` print their text without loading a command; the rest runs.
const words = process.argv.slice(2).filter((word) => word !== "--");
const [first, second] = words;
const topic =
  words.length === 0 || (words.length === 1 && ["--help", "-h", "help"].includes(first ?? ""))
    ? ""
    : words.length === 1 && ["--version", "-V", "version"].includes(first ?? "")
      ? "--version"
      : words.length === 2 && first !== undefined && ["--help", "-h"].includes(second ?? "")
        ? first
        : words.length === 2 && first === "help" && second !== undefined
          ? second
          : undefined;
const text = topic === undefined ? undefined : helpTexts()[topic];
// (In the installed command `./run.js` is its bundle, loaded with V8's code cache: scripts/bundle.ts.)
if (text === undefined) void import("./run.js");
else standardOutput().write(text);
