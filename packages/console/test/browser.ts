import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

/** Debian's chromium (apt-get install chromium), or the browser CHROMIUM_PATH names. Nothing is downloaded. */
const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

/** Where the test run leaves its screenshots of the main pages, for the README. */
export const SCREENSHOTS = fileURLToPath(new URL("../../../docs/screenshots/", import.meta.url));

export const launchChromium = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no browser at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  await mkdir(SCREENSHOTS, { recursive: true });
  // --no-sandbox: CI runs as root, where chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
};

export const screenshot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });

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
        if (element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement) {
          return (element.labels?.length ?? 0) === 0 && !element.getAttribute("aria-label");
        }
        return !(element.textContent ?? "").trim() && !element.getAttribute("aria-label");
      })
      .map((element) => element.outerHTML.slice(0, 120)),
  );
