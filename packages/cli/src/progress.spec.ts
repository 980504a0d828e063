import { describe, expect, it } from "vitest";
import { withProgress } from "./progress.js";

const recorder = (isTTY: boolean) => {
  const written: string[] = [];
  return { isTTY, write: (text: string) => written.push(text), written };
};
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("withProgress", () => {
  it("draws a spinner on a terminal while the work is slow, then erases it", async () => {
    const stream = recorder(true);
    expect(
      await withProgress(stream, "asking the orchestrator", async () => (await wait(120), "done"), {
        delayMs: 20,
        intervalMs: 20,
      }),
    ).toBe("done");
    expect(stream.written.length).toBeGreaterThan(2);
    expect(stream.written[0]).toMatch(/^\r. asking the orchestrator$/);
    expect(stream.written.at(-1)).toBe("\r\x1b[2K");
  });

  it("draws nothing for quick work, nor when the stream is not a terminal", async () => {
    const quick = recorder(true);
    await withProgress(quick, "x", async () => "done", { delayMs: 50 });
    const piped = recorder(false);
    await withProgress(piped, "x", () => wait(60), { delayMs: 1 });
    expect([...quick.written, ...piped.written]).toEqual([]);
  });

  it("erases the spinner when the process ends while it is drawn (Ctrl-C, SIGTERM), and only then", async () => {
    const stream = recorder(true);
    const before = process.listeners("exit");
    let finish = () => undefined as void;
    const work = withProgress(stream, "x", () => new Promise<void>((resolve) => (finish = resolve)), { delayMs: 1 });
    await wait(30);
    const added = process.listeners("exit").filter((listener) => !before.includes(listener));
    expect(added).toHaveLength(1);
    const drawnSoFar = stream.written.length;
    (added[0] as () => void)();
    expect(stream.written.slice(drawnSoFar)).toEqual(["\r\x1b[2K"]);
    finish();
    await work;
    expect(process.listeners("exit")).toEqual(before);
  });

  it("erases the spinner when the work fails", async () => {
    const stream = recorder(true);
    await expect(
      withProgress(stream, "x", async () => (await wait(60), Promise.reject(new Error("boom"))), { delayMs: 1 }),
    ).rejects.toThrow("boom");
    expect(stream.written.at(-1)).toBe("\r\x1b[2K");
  });
});
