import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type Doc = { paths: Record<string, Record<string, unknown>>; info: { title: string } };

/**
 * The API reference (Swagger UI at /docs) as a reader opens it: in a real browser (Debian's
 * Chromium, driven by playwright-core), under the service's own headers (its Content Security
 * Policy among them), with and without the trailing slash.
 */
describe('the API reference page in a browser', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let operations: string[];

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    const doc = (await t.http().get('/docs-json')).body as Doc;
    operations = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each(['/docs', '/docs/'])(
    'renders every route of the document at %s',
    async (path) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(`console: ${m.text()}`);
        });
        page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
        const opened = await page.goto(`${base}${path}`);
        expect(opened?.status()).toBe(200);
        // The machine may be busy: Swagger UI renders every operation after loading its bundle.
        await page.waitForSelector('.opblock-summary', { timeout: 60_000 });
        await expect(page.locator('.info .title').first().textContent()).resolves.toContain(
          'Bulk messaging API',
        );
        const shown = await page.$$eval('.opblock-summary', (blocks) =>
          blocks.map((b) => {
            const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
            const route = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
            return `${method} ${route}`;
          }),
        );
        expect([...new Set(shown)].sort()).toEqual(operations);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
    90_000,
  );
});
