import * as E from "fp-ts/lib/Either.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { describe, expect, it, vi } from "vitest";
import { decorateOrchestrator } from "./decorate-orchestrator.js";
import { ApiKey } from "../domain/api-key.js";
import type { OrchestratorUrl } from "../domain/codecs.js";
import { customerListOf } from "../domain/customer-list.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import { TEST_KEYS } from "../../testing/index.js";

const target = {
  orchestratorUrl: "https://vco.example.net" as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(TEST_KEYS.partner),
};
const deadline = { expiresAt: 42 };

describe("decorateOrchestrator", () => {
  it("forwards every call it does not override, with its arguments and answer, and replaces the ones it does", async () => {
    const inner = {
      startDeadline: vi.fn(() => deadline),
      admits: vi.fn(() => E.left("refused")),
      identify: vi.fn(() => TE.right({ kind: "customer" as const, customerId: 3 })),
      listPartnerCustomers: vi.fn(() => TE.right(customerListOf([]))),
      listApiTokens: vi.fn(() => TE.right([{ id: 1, tokenUuid: "9c1b", expiresAt: undefined }])),
      refreshApiToken: vi.fn(() => TE.right(ApiKey.unsafeFrom("refreshed"))),
      createApiToken: vi.fn(() => TE.right({ id: 8 })),
      downloadApiToken: vi.fn(() => TE.right(ApiKey.unsafeFrom("downloaded"))),
      revokeApiToken: vi.fn(() => TE.right(undefined)),
    } satisfies Orchestrator;
    const forwarded = decorateOrchestrator(inner, {});
    expect(forwarded.startDeadline()).toBe(deadline);
    expect(forwarded.admits("https://x.example.net")).toEqual(E.left("refused"));
    expect(inner.admits).toHaveBeenCalledWith("https://x.example.net");
    expect(await forwarded.identify(target, deadline)()).toEqual(E.right({ kind: "customer", customerId: 3 }));
    expect(inner.identify).toHaveBeenCalledWith(target, deadline);
    expect(await forwarded.listPartnerCustomers(target, 7, deadline)()).toEqual(await inner.listPartnerCustomers()());
    expect(inner.listPartnerCustomers).toHaveBeenCalledWith(target, 7, deadline);
    expect(await forwarded.listApiTokens(target, { kind: "partner", partnerId: 7 }, deadline)()).toEqual(
      E.right([{ id: 1, tokenUuid: "9c1b", expiresAt: undefined }]),
    );
    expect(inner.listApiTokens).toHaveBeenCalledWith(target, { kind: "partner", partnerId: 7 }, deadline);
    const partner = { kind: "partner", partnerId: 7 } as const;
    const request = { name: "renewed", lifetimeMs: 1000 };
    expect(await forwarded.refreshApiToken(target, deadline)()).toEqual(E.right(ApiKey.unsafeFrom("refreshed")));
    expect(inner.refreshApiToken).toHaveBeenCalledWith(target, deadline);
    expect(await forwarded.createApiToken(target, partner, request, deadline)()).toEqual(E.right({ id: 8 }));
    expect(inner.createApiToken).toHaveBeenCalledWith(target, partner, request, deadline);
    expect(await forwarded.downloadApiToken(target, partner, 8, deadline)()).toEqual(
      E.right(ApiKey.unsafeFrom("downloaded")),
    );
    expect(inner.downloadApiToken).toHaveBeenCalledWith(target, partner, 8, deadline);
    expect(await forwarded.revokeApiToken(target, partner, 8, deadline)()).toEqual(E.right(undefined));
    expect(inner.revokeApiToken).toHaveBeenCalledWith(target, partner, 8, deadline);

    const identify = vi.fn(() => TE.right({ kind: "partner" as const, partnerId: 7 }));
    const decorated = decorateOrchestrator(inner, { identify });
    expect(await decorated.identify(target)()).toEqual(E.right({ kind: "partner", partnerId: 7 }));
    expect(inner.identify).toHaveBeenCalledTimes(1);
    expect(decorated.startDeadline()).toBe(deadline);
  });
});
