import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorAdminService } from '../../src/modules/delivery/smpp/connector-admin.service.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startSmppApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * The connectors page (/admin/connectors), beside the queue dashboard and behind the same
 * ADMIN_TOKEN, opened in Debian's Chromium: the workers run in the app, bound to an SMPP peer
 * through SMPP_URL (the default connector) and refused by it on a second connector with a
 * wrong password.
 */
const TOKEN = 'ops-token-0123456789abcdef';

interface ConnectorJson {
  name: string;
  workers: number;
  bound: number;
  in_flight: number;
  window: number;
  sent_per_second: number;
  last_error: string | null;
  last_error_at: string | null;
  url: string;
}

describe('connectors page', () => {
  let t: TestApp;
  let peer: SmppPeer;
  let base: string;

  const list = async () =>
    (await t.http().get('/admin/connectors/api').set('Authorization', `Bearer ${TOKEN}`)).body as {
      connectors: ConnectorJson[];
    };

  beforeAll(async () => {
    peer = await startSmppPeer();
    t = await startSmppApp(peer.url, { ADMIN_TOKEN: TOKEN });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    await t.app.get(ConnectorAdminService, { strict: false }).add('backup', {
      url: peer.url.replace(/:[^:@/]*@/, ':wrong-password@'),
      tps: 50,
      window_size: 10,
      bind_mode: 'transceiver',
      system_type: null,
    });
    // Workers re-read the connectors and report their binds every 2 s.
    await waitFor(
      async () => {
        const { connectors } = await list();
        return (
          connectors.length === 2 && connectors.every((c) => c.workers === 1) && connectors[1]?.last_error
        );
      },
      20_000,
      'both connectors reported by the worker',
    );
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await peer?.close();
  });

  it('refuses a request without the admin token, in the error envelope with a Basic challenge', async () => {
    const none = await t.http().get('/admin/connectors');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Basic realm=/);
    expect(none.body.error.code).toBe('MISSING_API_KEY');
    const wrong = await t.http().get('/admin/connectors/api').auth('ops', 'not-the-token-at-all');
    expect(wrong.body.error.code).toBe('INVALID_API_KEY');
    const post = await t.http().post('/admin/connectors/api').set('Authorization', `Bearer ${TOKEN}`);
    expect([post.status, post.headers.allow, post.body.error.code]).toEqual([
      405,
      'GET, HEAD',
      'METHOD_NOT_ALLOWED',
    ]);
  });

  it("lists each connector's bind state over the workers, window, last error, and hides the password", async () => {
    const byName = Object.fromEntries((await list()).connectors.map((c) => [c.name, c]));
    expect(byName.default).toMatchObject({ workers: 1, bound: 1, window: 100, last_error: null });
    expect(byName.backup).toMatchObject({ workers: 1, bound: 0, window: 10 });
    expect(byName.backup.last_error).toMatch(/bind|ESME|password/i);
    expect(Date.parse(byName.backup.last_error_at!)).toBeGreaterThan(Date.now() - 60_000);
    expect(byName.backup.url).not.toContain('wrong-password');
  });

  it('a browser goes from the queue dashboard to the SMSC links and sees each bind state and the last error', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const context = await browser.newContext({ httpCredentials: { username: 'ops', password: TOKEN } });
      const page = await context.newPage();
      expect((await page.goto(`${base}/admin/queues`))?.status()).toBe(200);
      // Bull Board's own menu (its last header button) carries the link.
      await page.locator('header button[aria-haspopup="menu"]').last().click();
      await page.getByRole('menuitem', { name: 'SMSC links' }).click();
      await page.waitForURL(`${base}/admin/connectors`);
      // What goes wrong on this page (the queue dashboard's own console is not ours to judge).
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      const row = (name: string) => page.locator(`tr[data-connector="${name}"]`);
      await row('backup').waitFor({ timeout: 20_000 });
      await expect.poll(() => row('default').locator('.state').textContent()).toBe('bound');
      expect(await row('backup').locator('.state').textContent()).toBe('unbound');
      expect(await row('default').textContent()).toContain('1 of 1');
      expect(await row('backup').locator('td.error').textContent()).toMatch(/(bind|ESME|password).* ago\)$/i);
      await page.screenshot({ path: join(tmpdir(), 'connectors-page.png'), fullPage: true });
      // The page refreshes by itself: a connector disabled now leaves the bound state within seconds.
      await t.app.get(ConnectorAdminService, { strict: false }).update('backup', { enabled: false });
      await expect
        .poll(() => row('backup').locator('.state').textContent(), { timeout: 15_000 })
        .toBe('disabled');
      expect(errors).toEqual([]);
      // The queue dashboard is one click away.
      await page.getByRole('link', { name: 'Queues' }).click();
      await page.waitForURL(`${base}/admin/queues`);
    } finally {
      await browser?.close();
    }
  }, 90_000);
});
