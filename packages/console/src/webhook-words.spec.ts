import { describe, expect, it } from "vitest";
import { answerOf, parseTypes, pingOutcome, typesText } from "./webhook-words.js";

const at = new Date("2026-11-27T19:30:00.000Z");

describe("webhooks in words", () => {
  it("say what a receiver answered, or why nothing came", () => {
    expect(answerOf({ at, status: 204, error: null, latencyMs: 3 })).toBe("HTTP 204");
    expect(answerOf({ at, status: null, error: "connect ECONNREFUSED", latencyMs: 1 })).toBe(
      "no answer: connect ECONNREFUSED",
    );
    expect(pingOutcome("https://r.example/", { at, status: 200, error: null, latencyMs: 12 })).toBe(
      "Ping delivered: https://r.example/ answered HTTP 200 in 12 ms.",
    );
    expect(pingOutcome("https://r.example/", { at, status: 500, error: null, latencyMs: 7 })).toBe(
      "Ping not taken: https://r.example/ answered HTTP 500 in 7 ms.",
    );
    // Regression: "… answered no answer: ECONNREFUSED in 43 ms."
    expect(pingOutcome("https://r.example/", { at, status: null, error: "ECONNREFUSED", latencyMs: 43 })).toBe(
      "Ping not taken: https://r.example/ gave no answer (ECONNREFUSED) after 43 ms.",
    );
  });

  it("read and write the event types", () => {
    expect(parseTypes(" connection.health.*, connection.key.*  connection.added,")).toEqual([
      "connection.health.*",
      "connection.key.*",
      "connection.added",
    ]);
    expect(parseTypes(" , ")).toEqual([]);
    expect(typesText(["*"])).toBe("every event");
    expect(typesText(["connection.health.*", "connection.key.*"])).toBe("connection.health.*, connection.key.*");
  });
});
