import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { standardOutput } from "./standard-output.js";

const directory = mkdtempSync(join(tmpdir(), "sdwan-stdout-"));
const opened: number[] = [];
const open = (path: string, flags: number): number => {
  const fd = openSync(path, flags);
  opened.push(fd);
  return fd;
};
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd);
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A stand-in for process.stdout that counts how often it was asked for and keeps what it was given. */
const counted = () => {
  const given: Buffer[] = [];
  const made = { count: 0, given };
  const stream = {
    isTTY: true,
    columns: 77,
    write: (chunk: string | Uint8Array) => (given.push(Buffer.from(chunk)), true),
    on: () => stream,
    once: () => stream,
  };
  return { made, factory: () => ((made.count += 1), stream as unknown as NodeJS.WriteStream) };
};

describe("standardOutput", () => {
  it("writes to a file or a pipe itself: the stream (process.stdout, node:net on a pipe) is never made", () => {
    const path = join(directory, "answer.txt");
    const fd = open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
    const { made, factory } = counted();
    const out = standardOutput(fd, factory);
    expect(out.isTTY).toBe(false);
    expect(out.columns).toBeUndefined();
    expect(out.write("één\n")).toBe(true);
    let ended = 0;
    out.end(() => (ended += 1));
    expect(ended).toBe(1);
    expect(made.count).toBe(0);
    expect(readFileSync(path, "utf8")).toBe("één\n");
  });

  it("leaves a character device (a terminal) to the stream, which says whether it is one and how wide", () => {
    const fd = open("/dev/null", constants.O_WRONLY);
    const { made, factory } = counted();
    const out = standardOutput(fd, factory);
    expect(out.isTTY).toBe(true);
    expect(out.columns).toBe(77);
    out.write("x");
    expect(made.given.map(String)).toEqual(["x"]);
    expect(made.count).toBeGreaterThan(0);
  });

  it("hands the rest to the stream when a non-blocking pipe is full (EAGAIN), and everything after it, in order", () => {
    const fifo = join(directory, "fifo");
    execFileSync("mkfifo", [fifo]);
    const reader = open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = open(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const { made, factory } = counted();
    const out = standardOutput(writer, factory);
    const big = "a".repeat(1 << 20);
    expect(out.write(big)).toBe(true);
    out.write("after");
    // What the pipe took, then what the stream was given: the whole answer once, in order.
    const taken = Buffer.alloc(1 << 20);
    let read = 0;
    const drained = () => {
      try {
        return readSync(reader, taken, read, taken.length - read, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") return 0;
        throw error;
      }
    };
    for (let got = drained(); got > 0; got = drained()) read += got;
    expect(made.count).toBeGreaterThan(0);
    expect(read + Buffer.concat(made.given).length).toBe(big.length + "after".length);
    expect(Buffer.concat(made.given).subarray(-5).toString()).toBe("after");
  });
});
