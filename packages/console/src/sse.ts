/** One Server-Sent Event: its id (the last one the stream named), type ("message" when unnamed) and data. */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

// A CR at the very end of the text read so far is held back: it may be the first half of a CRLF split across chunks.
const LINE_END = /\r\n|\r(?!$)|\n/;

/**
 * A Server-Sent Events parser (the HTML standard's "interpreting an event stream"): feed it the text as it
 * arrives, in chunks cut anywhere; it hands on each complete event. Comments and `retry:` are skipped (the
 * reader has its own backoff); an event without data is not dispatched, but its `id:` is kept.
 */
export const sseParser = (onMessage: (message: SseMessage) => void): ((chunk: string) => void) => {
  let buffer = "";
  let id: string | undefined;
  let event = "";
  let data: string[] = [];
  const line = (text: string): void => {
    if (text === "") {
      if (data.length > 0) onMessage({ id, event: event || "message", data: data.join("\n") });
      event = "";
      data = [];
      return;
    }
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    const value = colon === -1 ? "" : text.slice(colon + (text[colon + 1] === " " ? 2 : 1));
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value === "" ? undefined : value;
  };
  return (chunk) => {
    buffer += chunk;
    for (let match = LINE_END.exec(buffer); match !== null; match = LINE_END.exec(buffer)) {
      line(buffer.slice(0, match.index));
      buffer = buffer.slice(match.index + match[0].length);
    }
  };
};
