import { AuditPage, KeyCheck, Webhook } from "@sdwan-connections/core/wire";
import type { Response } from "express";
import { describe, expect, it } from "vitest";
import { sendJson } from "../src/respond.js";

// Checked by the typecheck (`tsc`), never run: each `@ts-expect-error` must meet an error, or the typecheck fails.
const answers = (res: Response) => {
  const webhook = {
    id: "w1",
    url: "https://r.example/",
    types: ["*"],
    kind: "cloudevents" as const,
    createdAt: new Date(),
    disabledAt: null,
  };
  sendJson(res, 200, Webhook, webhook);
  // @ts-expect-error a field the wire's codec lacks (a serializer that adds one)
  sendJson(res, 200, Webhook, { ...webhook, secret: "whsec_x" });
  // @ts-expect-error a field the codec has, missing (a codec that gained one)
  sendJson(res, 200, KeyCheck, {});
  const entry = { id: "e", at: new Date(), actor: "a", requestId: null, action: "add" as const, alias: null };
  const more = { fields: [], forced: false, validation: "valid" as const, outcome: "failed" as const };
  sendJson(res, 200, AuditPage, { entries: [{ ...entry, ...more, failure: null, detail: null }], next: null });
  const leaking = { ...entry, ...more, failure: null, detail: null, key: "k" };
  // @ts-expect-error a field the codec lacks, deep in a list
  sendJson(res, 200, AuditPage, { entries: [leaking], next: null });
};

describe("a JSON answer is typed by its wire codec", () => {
  it("refuses a body with a field more or less than the codec's, at any depth (see the typecheck)", () => {
    expect(answers).toBeTypeOf("function");
  });
});
