import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

/** Debian's chromium (apt-get install chromium), or the browser CHROMIUM_PATH names. Nothing is downloaded. */
const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

/** The screenshots of the READMEs, refreshed on request only (`pnpm --filter @sdwan-connections/console screenshots`). */
const DOCS_SCREENSHOTS = fileURLToPath(new URL("../../../docs/screenshots/", import.meta.url));

export const launchChromium = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  // --no-sandbox: CI runs as root, where chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
};

/**
 * A function that takes a full-page screenshot named `name`: into
 * docs/screenshots when SDWAN_SCREENSHOTS=1 (the `screenshots` script),
 * otherwise into `temporary`, so that a test run leaves the working tree clean.
 */
export const screenshots = async (temporary: string): Promise<(page: Page, name: string) => Promise<void>> => {
  const directory = process.env["SDWAN_SCREENSHOTS"] === "1" ? DOCS_SCREENSHOTS : temporary;
  await mkdir(directory, { recursive: true });
  return async (page, name) => {
    await page.screenshot({ path: join(directory, `${name}.png`), fullPage: true });
  };
};

/** Signs in through the form, with the keyboard only. */
export const signIn = async (page: Page, url: string, user: string, password: string): Promise<void> => {
  await page.goto(`${url}/console/`);
  await page.getByLabel("User").focus();
  await page.keyboard.type(user);
  await page.keyboard.press("Tab");
  await page.keyboard.type(password);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Connections" }).waitFor();
};

/** The controls of the page that have no accessible name (a label, aria-label or text). */
export const unlabelledControls = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("input, select, textarea, button, a[href], [role=grid]")]
      .filter((element) => {
        if (
          element instanceof HTMLInputElement ||
          element instanceof HTMLSelectElement ||
          element instanceof HTMLTextAreaElement
        ) {
          return (element.labels?.length ?? 0) === 0 && !element.getAttribute("aria-label");
        }
        return !(element.textContent ?? "").trim() && !element.getAttribute("aria-label");
      })
      .map((element) => element.outerHTML.slice(0, 120)),
  );
