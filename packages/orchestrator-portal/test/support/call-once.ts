/**
 * One portal call in a process of its own, for memory tests: `call-once.ts <orchestrator url> identify|list`.
 * Prints one JSON line: the call's result, the process's resident set before it and its peak (VmHWM) after it.
 */
import { readFileSync } from "node:fs";
import { createPortalOrchestrator } from "../../src/index.js";
import { targetFor } from "../helpers.js";

const status = (field: "VmRSS" | "VmHWM"): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync("/proc/self/status", "utf8"))?.[1]) * 1024;

const [url = "", call = ""] = process.argv.slice(2);
const orchestrator = createPortalOrchestrator({ allowedHosts: undefined, timeoutMs: 60_000, retries: 0 });
const target = targetFor(url, "a-key");
const rssBefore = status("VmRSS");
const result =
  call === "identify" ? await orchestrator.identify(target)() : await orchestrator.listPartnerCustomers(target, 10)();
const peak = status("VmHWM");
orchestrator.close();
process.stdout.write(
  `${JSON.stringify({ result: "right" in result ? { count: "count" in result.right ? result.right.count : result.right } : result.left, rssBefore, peak })}\n`,
);
