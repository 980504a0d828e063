import { reportFigures } from "@sdwan-connections/bench-kit";
import { afterAll, describe, expect, it } from "vitest";
import { describeBurst, keyCheckBurst, loginBurst } from "./bursts.js";
import { anAddBody, BASE, client, startHarness, startWiredService, type Harness } from "./harness.js";

const MAX_FAILURES = 5;
const BURST = 200;
const env = { SDWAN_LOGIN_MAX_FAILURES: String(MAX_FAILURES), SDWAN_LOGIN_WINDOW_MS: "600000" };
const lines: string[] = [];

const stores: readonly [string, () => Promise<{ readonly url: string } & AsyncDisposable>][] = [
  [
    "in memory",
    async () => startHarness({ env }).then((harness: Harness) => Object.assign(harness, { url: harness.service.url })),
  ],
  ["lowdb", () => startWiredService(env)],
];

afterAll(async () => {
  // Only a full run's figures are written: a filtered run would leave the section short.
  if (lines.length < stores.length * 2) return;
  await reportFigures(
    "reliability:throttle-burst",
    `Last run, one instance, SDWAN_LOGIN_MAX_FAILURES=${MAX_FAILURES}:\n\n${lines.map((line) => `- ${line}`).join("\n")}`,
  );
});

describe.each(stores)("a burst from one client, one instance (%s)", (store, start) => {
  it(`checks at most SDWAN_LOGIN_MAX_FAILURES of ${BURST} concurrent wrong logins; the others are 429 before any check`, async () => {
    await using service = await start();
    const outcome = await loginBurst([service.url], BURST);
    lines.push(describeBurst(`${store}, wrong logins`, BURST, outcome));
    expect(outcome.checks).toBe(MAX_FAILURES);
    expect(outcome.statuses).toEqual({ 401: MAX_FAILURES, 429: BURST - MAX_FAILURES });
  });

  it(`answers at most SDWAN_LOGIN_MAX_FAILURES of ${BURST} concurrent key checks that do not match`, async () => {
    await using service = await start();
    expect((await client(service.url)("POST", `${BASE}/connections`, { body: anAddBody() })).status).toBe(200);
    const outcome = await keyCheckBurst([service.url], BURST, "lab");
    lines.push(describeBurst(`${store}, key checks`, BURST, outcome));
    expect(outcome.checks).toBe(MAX_FAILURES);
    expect(outcome.statuses).toEqual({ 200: MAX_FAILURES, 429: BURST - MAX_FAILURES });
  });
});
