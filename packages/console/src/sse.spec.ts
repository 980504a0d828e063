import { describe, expect, it } from "vitest";
import { sseParser, type SseMessage } from "./sse.js";

const parse = (...chunks: string[]): SseMessage[] => {
  const messages: SseMessage[] = [];
  const feed = sseParser((message) => messages.push(message));
  for (const chunk of chunks) feed(chunk);
  return messages;
};

describe("sseParser", () => {
  it("reads the service's frames: id, type and one data line, comments skipped", () => {
    expect(parse(": connected\n\n", 'id: a1\nevent: connection.added\ndata: {"x":1}\n\n', ": heartbeat\n\n")).toEqual([
      { id: "a1", event: "connection.added", data: '{"x":1}' },
    ]);
  });

  it("gives the same events whatever the chunks, even one character at a time, and across CRLF split in two", () => {
    const text = "id: 1\r\nevent: a\r\ndata: one\r\n\r\nid: 2\rdata: two\r\rdata: three\n\n";
    const whole = parse(text);
    expect(whole).toEqual([
      { id: "1", event: "a", data: "one" },
      { id: "2", event: "message", data: "two" },
      { id: "2", event: "message", data: "three" },
    ]);
    expect(parse(...text.split(""))).toEqual(whole);
    expect(parse("id: 1\r", "\ndata: one\r", "\n\r", "\n")).toEqual([{ id: "1", event: "message", data: "one" }]);
  });

  it("joins data lines, takes a field without a space or a value, and waits for the blank line", () => {
    expect(parse("data:a\ndata\ndata:  b\n")).toEqual([]);
    expect(parse("data:a\ndata\ndata:  b\n\n")).toEqual([{ id: undefined, event: "message", data: "a\n\n b" }]);
  });

  it("keeps an id from an event without data, drops an id holding NUL, and skips retry and unknown fields", () => {
    expect(parse("id: 7\n\nretry: 10\nfoo: bar\nid: x\0y\ndata: d\n\n")).toEqual([
      { id: "7", event: "message", data: "d" },
    ]);
    expect(parse("id: 7\ndata: a\n\nid\ndata: b\n\n").map((message) => message.id)).toEqual(["7", undefined]);
  });

  it("forgets the type of an event without data", () => {
    expect(parse("event: reset\n\ndata: d\n\n")).toEqual([{ id: undefined, event: "message", data: "d" }]);
  });
});
