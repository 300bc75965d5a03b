import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { ROOT } from "./process.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = path.join(ROOT, "test", "artifacts");

/**
 * Debian's Chromium, headless, driven by playwright-core. The flags keep it from
 * reaching for the network (this machine has none beyond loopback).
 */
export async function launchBrowser(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/** A phone-sized page (iPhone 12-like), as a buyer opening the link on a phone would see; its browser prefers `locale`. */
export async function phonePage(browser: Browser, { locale = "en-US" }: { locale?: string } = {}) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale });
  return { context, page: await context.newPage() };
}
