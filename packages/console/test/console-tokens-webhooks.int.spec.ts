import { createHmac } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshots, signIn, unlabelledControls } from "./browser.js";

const ADMIN = { user: "admin", password: "console-admin-password" };
const BASE = "/rest/plugin/sdwan";
const VIEWPORTS = [
  ["desktop", { viewport: { width: 1280, height: 900 } }],
  ["phone", { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
] as const;
const SERVICE_TOKEN = /^sdw_[A-Za-z0-9_-]{43}$/;
/** Long enough for a delivery, its retry a second later, and a slow machine. */
const SETTLED = { timeout: 20_000 };
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** How far the page reaches past the window's right edge (0 when nothing scrolls sideways). */
const sidewaysOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth);

/** What a receiver got: the path, headers and body of each POST. */
interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A webhook receiver on loopback: records each POST, answers `status` (changed by the test). */
const startReceiver = async () => {
  const received: Received[] = [];
  const state = { status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    state,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Whether a POST is signed with `secret` as Standard Webhooks say. */
const signedWith = (secret: string, { headers, body }: Received): boolean =>
  headers["webhook-signature"] ===
  `v1,${createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
    .update(`${String(headers["webhook-id"])}.${String(headers["webhook-timestamp"])}.${body}`)
    .digest("base64")}`;

describe("the Tokens and Webhooks pages (SPEC §9, §11), in Debian's chromium", { timeout: 180_000 }, () => {
  let dir: string;
  let service: ServiceProcess;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  let screenshot: Awaited<ReturnType<typeof screenshots>>;
  const pageErrors: string[] = [];

  const newPage = async (options: BrowserContextOptions): Promise<Page> => {
    // The clipboard, as a person's browser grants it to a page they use.
    const context = await browser.newContext({ ...options, permissions: ["clipboard-read", "clipboard-write"] });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("console", (message) => message.type() === "error" && pageErrors.push(message.text()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
    return page;
  };
  /** A REST call, as the admin (Basic) or with a bearer token. */
  const rest = (method: string, path: string, options: { body?: unknown; bearer?: string } = {}) =>
    fetch(`${service.url}${BASE}${path}`, {
      method,
      headers: {
        authorization:
          options.bearer === undefined
            ? `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString("base64")}`
            : `Bearer ${options.bearer}`,
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
  /** An event: a connection added without asking an orchestrator (none runs here). */
  const addConnection = async (alias: string): Promise<void> => {
    const added = await rest("POST", "/connections?force=true", {
      body: { alias, orchestratorUrl: "https://orchestrator.example", apiKey: `key-of-${alias}` },
    });
    expect(added.status).toBe(200);
  };
  const nav = (page: Page, name: string) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();
  /** The page is usable: every control named, nothing past the screen's right edge. */
  const usable = async (page: Page): Promise<void> => {
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-console-tokens-webhooks-"));
    receiver = await startReceiver();
    service = await startServiceProcess({
      SDWAN_DATA_DIR: join(dir, "data"),
      SDWAN_ADMIN_USER: ADMIN.user,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      // The receiver is on loopback, over http:; a failed delivery is retried once, a second later, then dead.
      SDWAN_WEBHOOK_ALLOW_HTTP: "true",
      SDWAN_WEBHOOK_RETRY_S: "1",
    });
    browser = await launchChromium();
    screenshot = await screenshots(join(dir, "screenshots"));
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  for (const [name, options] of VIEWPORTS) {
    it(`an admin makes a service token (its secret shown once, copied), uses it, renews and revokes it (${name})`, async () => {
      const page = await newPage(options);
      await signIn(page, service.url, ADMIN.user, ADMIN.password);
      await nav(page, "Tokens");
      await page.getByRole("heading", { name: "Service tokens" }).waitFor();

      // A field the service refuses is named beside it; a grant line that cannot be read, in the list.
      const form = page.getByRole("form", { name: "Make a service token" });
      await page.getByLabel("Name").fill("not a name!");
      await page.getByLabel("Expires in (days)").fill("400");
      await form.getByRole("button", { name: "Make token" }).click();
      for (const field of ["name", "expiresInDays"]) {
        await page.locator(`#${field}-error`).waitFor();
        expect(await page.locator(`#${field}`).getAttribute("aria-invalid")).toBe("true");
      }
      await page.getByLabel("Grants").fill("lab-* manage\nemea-* write");
      await form.getByRole("button", { name: "Make token" }).click();
      // Beside the field, as every other field's (it was only in the box below the form).
      await page.locator("#grants-error").getByText("line 2 is not PATTERN VERB").waitFor();
      expect(await page.getByLabel("Grants").getAttribute("aria-describedby")).toBe("grants-hint grants-error");
      expect(await page.getByLabel("Grants").getAttribute("aria-invalid")).toBe("true");

      const tokenName = `ci-${name}`;
      await page.getByLabel("Name").fill(tokenName);
      await page.getByLabel("Expires in (days)").fill("30");
      await page.getByLabel("Role").selectOption("viewer");
      await page.getByLabel("Grants").fill("lab-* manage");
      await form.getByRole("button", { name: "Make token" }).click();
      const shown = page.getByRole("region", { name: `The secret of ${tokenName}` });
      await shown.getByText("Copy it now: you won't see it again.").waitFor();
      const secret = await shown.getByRole("textbox").inputValue();
      expect(secret).toMatch(SERVICE_TOKEN);
      await shown.getByRole("button", { name: "Copy" }).click();
      await shown.getByRole("status").getByText("Copied.").waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      const row = page.getByRole("row", { name: new RegExp(tokenName) });
      await row.getByText("viewer").waitFor();
      await row.getByText("never").waitFor();
      await row.getByText(ADMIN.user, { exact: true }).waitFor();
      await usable(page);
      await screenshot(page, name === "phone" ? "phone-tokens" : "tokens");

      // The token works, as token:NAME with its grant; the list then tells when it was last used.
      const me = await rest("GET", "/me?grants=true", { bearer: secret });
      expect(await me.json()).toEqual({
        user: `token:${tokenName}`,
        role: "viewer",
        grants: [{ pattern: "lab-*", verb: "manage" }],
      });
      // Done forgets the secret: it is nowhere in the page any more.
      await shown.getByRole("button", { name: "Done: I copied it" }).click();
      await shown.waitFor({ state: "detached" });
      expect(await page.content()).not.toContain(secret);
      await expect
        .poll(async () => {
          await nav(page, "Connections");
          await nav(page, "Tokens");
          await row.waitFor();
          return row.locator("time").count();
        }, SETTLED)
        .toBe(2);

      // Renewing asks first, then shows the new secret once; both work for the overlap.
      await page.getByRole("button", { name: `Renew ${tokenName}` }).click();
      const renewDialog = page.getByRole("dialog", { name: "Renew the token?" });
      await renewDialog.getByRole("button", { name: "Cancel" }).click();
      await renewDialog.waitFor({ state: "hidden" });
      expect(await shown.count()).toBe(0);
      await page.getByRole("button", { name: `Renew ${tokenName}` }).click();
      await renewDialog.getByRole("button", { name: "Renew" }).click();
      await shown.waitFor();
      const renewed = await shown.getByRole("textbox").inputValue();
      expect(renewed).toMatch(SERVICE_TOKEN);
      expect(renewed).not.toBe(secret);
      await page.getByRole("status").getByText(`Renewed the service token ${tokenName}`).waitFor();
      expect((await rest("GET", "/me", { bearer: renewed })).status).toBe(200);
      expect((await rest("GET", "/me", { bearer: secret })).status).toBe(200);
      await shown.getByRole("button", { name: "Done: I copied it" }).click();

      // Revoking asks first; then neither secret works.
      await page.getByRole("button", { name: `Revoke ${tokenName}` }).click();
      await page.getByRole("dialog", { name: "Revoke the token?" }).getByRole("button", { name: "Revoke" }).click();
      await page.getByRole("status").getByText(`Revoked the service token ${tokenName}.`).waitFor();
      await row.waitFor({ state: "detached" });
      await expect.poll(async () => (await rest("GET", "/me", { bearer: renewed })).status, SETTLED).toBe(401);
      expect((await rest("GET", "/me", { bearer: secret })).status).toBe(401);
      await page.context().close();
    });
  }

  // Regression (issue 38): a refused bearer token was answered in words about HTTP Basic credentials.
  it("signs in with a service token, and a refusal names the service token, never Basic credentials", async () => {
    const made = await rest("POST", "/tokens", { body: { name: "reader", expiresInDays: 1 } });
    expect(made.status).toBe(201);
    const { id, token } = (await made.json()) as { id: string; token: string };
    const page = await newPage(VIEWPORTS[1][1]);
    await page.goto(`${service.url}/console/`);
    await page.getByText("Sign in with a service token").click();
    // Not a service token at all: said before anything is sent.
    await page.getByLabel("Service token", { exact: true }).fill("hunter2");
    await page.getByRole("button", { name: "Sign in with the token" }).click();
    await page.getByRole("alert").getByText("Not a service token").waitFor();
    // One the service does not know: its own reason, in the service token's words.
    await page.getByLabel("Service token", { exact: true }).fill(`sdw_${"A".repeat(43)}`);
    await page.getByRole("button", { name: "Sign in with the token" }).click();
    await page.getByRole("alert").getByText("The service token was refused", { exact: true }).waitFor();
    // The service's reason follows (its words are its own: another scheme's never shown, below).
    expect(await page.getByRole("alert").textContent()).toContain("The service's answer: ");
    expect(await page.getByRole("alert").textContent()).not.toMatch(/Basic/);
    expect(await page.getByLabel("Service token", { exact: true }).inputValue()).toBe("");

    await page.getByLabel("Service token", { exact: true }).fill(token);
    await page.getByRole("button", { name: "Sign in with the token" }).click();
    await page.getByRole("heading", { name: "Connections" }).waitFor();
    expect(await page.getByRole("banner").textContent()).toContain("token:reader (viewer)");
    // A viewer: no Tokens or Webhooks pages.
    const main = page.getByRole("navigation", { name: "Main" });
    for (const link of ["Grants", "Tokens", "Webhooks"])
      expect(await main.getByRole("link", { name: link }).count()).toBe(0);
    await page.goto(`${service.url}/console/#/webhooks`);
    await page.getByRole("heading", { name: "Not allowed" }).waitFor();

    // Revoked meanwhile: the next call signs the tab out, saying the service token was refused.
    expect((await rest("DELETE", `/tokens/${id}`)).status).toBe(204);
    await page.reload();
    await page.getByRole("alert").getByText("The service token was refused", { exact: true }).waitFor();
    const said = await page.getByRole("alert").textContent();
    expect(said).toContain("revoked or expired");
    expect(said).not.toMatch(/Basic|password/);
    // Not a local user: no user name kept, the token's form open for another token.
    expect(await page.getByLabel("User").inputValue()).toBe("");
    await page.getByLabel("Service token", { exact: true }).waitFor();
    await screenshot(page, "phone-token-refused");
    await page.context().close();
  });

  for (const [name, options] of VIEWPORTS) {
    it(`an admin adds webhooks (the secret shown once), pings one, reads its deliveries by status and redelivers a dead one (${name})`, async () => {
      receiver.state.status = 200;
      const page = await newPage(options);
      await signIn(page, service.url, ADMIN.user, ADMIN.password);
      await nav(page, "Webhooks");
      await page.getByRole("heading", { name: "Webhooks" }).waitFor();
      const form = page.getByRole("form", { name: "Add a webhook" });

      // OpenNMS's kind asks for its REST user; refused fields are said.
      await page.getByLabel("Kind").selectOption("opennms");
      await page.getByLabel("OpenNMS user").waitFor();
      await page.getByLabel("URL").fill("ftp://opennms.example/");
      await page.getByLabel("OpenNMS user").fill("admin");
      await page.getByLabel("OpenNMS password").fill("opennms-password");
      await form.getByRole("button", { name: "Add webhook" }).click();
      await page.locator("#url-error").waitFor();
      const opennmsUrl = `${receiver.url}/${name}/opennms/rest/events`;
      await page.getByLabel("URL").fill(opennmsUrl);
      await form.getByRole("button", { name: "Add webhook" }).click();
      const opennmsSecret = page.getByRole("region", { name: `The signing secret of ${opennmsUrl}` });
      expect(await opennmsSecret.getByRole("textbox").inputValue()).toMatch(WEBHOOK_SECRET);
      await opennmsSecret.getByRole("button", { name: "Done: I copied it" }).click();
      expect(await page.content()).not.toContain("opennms-password");
      const opennmsRow = page.getByRole("row", { name: new RegExp(opennmsUrl) });
      expect(await opennmsRow.locator("td[data-label=Kind]").textContent()).toBe("opennms");
      expect(await page.getByLabel("OpenNMS user").count()).toBe(0); // back to the default kind

      // CloudEvents, for the connections' changes: its secret signs what the receiver gets.
      const url = `${receiver.url}/${name}`;
      await page.getByLabel("URL").fill(url);
      await page.getByLabel("Event types").fill("connection.added, connection.deleted");
      await form.getByRole("button", { name: "Add webhook" }).click();
      const shown = page.getByRole("region", { name: `The signing secret of ${url}` });
      const secret = await shown.getByRole("textbox").inputValue();
      expect(secret).toMatch(WEBHOOK_SECRET);
      const row = page.getByRole("row", { name: new RegExp(`${url} `) });
      await row.getByText("connection.added, connection.deleted").waitFor();
      await usable(page);
      await screenshot(page, name === "phone" ? "phone-webhooks" : "webhooks");
      await shown.getByRole("button", { name: "Done: I copied it" }).click();
      expect(await page.content()).not.toContain(secret);

      // Ping: the receiver's answer and latency on the page; what it got is signed with the secret.
      const before = receiver.received.length;
      await page.getByRole("button", { name: `Ping ${url}`, exact: true }).click();
      await page
        .getByRole("status")
        .getByText(new RegExp(`^Ping delivered: ${url} answered HTTP 200 in \\d+ ms\\.$`))
        .waitFor();
      const pinged = receiver.received.slice(before).find((one) => one.body.includes("webhook.ping"));
      expect(pinged).toBeDefined();
      expect(signedWith(secret, pinged!)).toBe(true);

      // A change is delivered; another, while the receiver fails, is retried once and dead.
      await addConnection(`delivered-${name}`);
      const path = new URL(url).pathname;
      await expect
        .poll(
          () => receiver.received.some((one) => one.path === path && one.body.includes(`delivered-${name}`)),
          SETTLED,
        )
        .toBe(true);
      receiver.state.status = 503;
      await addConnection(`dead-${name}`);
      await page.getByRole("link", { name: `Deliveries of ${url}`, exact: true }).click();
      await page.getByRole("heading", { name: url }).waitFor();
      const deliveries = page.getByRole("region", { name: "Deliveries" });
      const deliveryRows = deliveries.locator("tbody tr");
      const withStatus = (status: string) =>
        deliveryRows.filter({ has: page.locator("td[data-label=Status]", { hasText: new RegExp(`^${status}$`) }) });
      await expect
        .poll(async () => {
          // Read again, the rows shown meanwhile.
          await deliveries.getByRole("button", { name: "Refresh" }).click();
          return withStatus("dead").count();
        }, SETTLED)
        .toBe(1);
      receiver.state.status = 200;
      await expect.poll(() => deliveryRows.count(), SETTLED).toBe(2); // the OpenNMS webhook's deliveries are its own
      const dead = withStatus("dead");
      await dead.getByText("HTTP 503").waitFor();
      expect(await dead.locator("td[data-label=Attempts]").textContent()).toBe("2");
      const delivered = withStatus("delivered");
      await delivered.getByText("HTTP 200").waitFor();
      expect(await delivered.locator("td[data-label=Latency]").textContent()).toMatch(/^\d+ ms$/);
      // Filtered by status: the service answers only those (?status=).
      await deliveries.getByLabel("Status").selectOption("dead");
      await deliveries.getByText("1 dead delivery").waitFor();
      expect(await withStatus("dead").count()).toBe(1);
      expect(await deliveryRows.count()).toBe(1);
      await usable(page);
      await screenshot(page, name === "phone" ? "phone-webhook-deliveries" : "webhook-deliveries");

      // Redeliver the dead one, the receiver well again: a new attempt of the same event (same webhook-id), delivered.
      const eventId = (await dead.locator("td.title").textContent())!;
      const tries = () => receiver.received.filter((one) => one.path === path && one.headers["webhook-id"] === eventId);
      expect(tries()).toHaveLength(2);
      await page.getByRole("button", { name: `Redeliver ${eventId}`, exact: true }).click();
      await page.getByRole("status").getByText(`Sending event ${eventId} again`).waitFor();
      await expect.poll(() => tries().length, SETTLED).toBe(3);
      expect(signedWith(secret, tries()[2]!)).toBe(true);
      await deliveries.getByLabel("Status").selectOption("delivered");
      const again = withStatus("delivered").filter({ hasText: eventId });
      await expect
        .poll(async () => {
          await deliveries.getByRole("button", { name: "Refresh" }).click();
          return again.count();
        }, SETTLED)
        .toBe(1);
      await again.getByText("HTTP 200").waitFor();
      expect(await again.locator("td[data-label=Attempts]").textContent()).toBe("1");

      // Ping from here too; then delete the webhook after a confirmation.
      await page.getByRole("button", { name: "Ping", exact: true }).click();
      await page
        .getByRole("status")
        .getByText(/^Ping delivered/)
        .waitFor();
      await nav(page, "Webhooks");
      await page.getByRole("button", { name: `Delete ${opennmsUrl}` }).click();
      await page.getByRole("dialog", { name: "Delete the webhook?" }).getByRole("button", { name: "Delete" }).click();
      await page.getByRole("status").getByText(`Deleted the webhook to ${opennmsUrl}.`).waitFor();
      // The list is read again after the notice: the row goes then.
      await page.getByRole("row", { name: new RegExp(opennmsUrl) }).waitFor({ state: "detached" });
      await page.context().close();
    });
  }

  it("logged no error in the pages but the refusals the tests asked for (a CSP violation is one)", () => {
    expect(pageErrors.filter((text) => !/status of (400|401)/.test(text))).toEqual([]);
  });
});
