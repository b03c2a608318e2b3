import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { inboundFrom } from '../support/account-probes.js';
import { messagesTo } from '../support/message-probes.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const LONG = '260970000300';
const LIMIT = 3;

/**
 * Auto-replies are the other thing pumping buys: a flood of HELPs from one purchased range, each
 * answered once. The guard lets PUMPING_PREFIX_LIMIT replies go to a prefix in an hour and then
 * blocks it; the refused replies are not sent nor charged.
 */
describe('pumping guard in front of auto-replies', () => {
  let t: TestApp;
  let tenant: Tenant;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(env, args);

  beforeAll(async () => {
    const settings = {
      RUN_WORKERS: 'true',
      SWEEP_INTERVAL_MS: '300',
      SWEEP_MIN_AGE_MS: '0',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      PUMPING_PREFIX_LIMIT: String(LIMIT),
    };
    t = await startTestApp(settings);
    env = testEnv(t.name, settings);
    tenant = await createTenant(t, { prices: { sms: '1' } });
    expect((await cli('numbers', 'add', '--username', tenant.username, '--number', LONG)).code).toBe(0);
    const set = await cli('accounts', 'auto-reply', '--username', tenant.username, '--on-help', 'Call us.');
    expect(set.code).toBe(0);
  }, 60_000);
  afterAll(async () => t?.close());

  it('answers PUMPING_PREFIX_LIMIT senders of one prefix, then blocks the prefix', async () => {
    const senders = Array.from({ length: LIMIT + 3 }, (_, i) => `260966777${String(100 + i)}`);
    const other = '260955111100';
    for (const from of [...senders, other])
      expect((await cli('inbound', 'simulate', '--from', from, '--to', LONG, '--text', 'HELP')).code).toBe(0);
    // Every HELP wanted a reply; the guard decides which go out.
    const wanted = await inboundFrom(t, tenant.account.id, [...senders, other], 'reply_text');
    expect(wanted.filter((r) => r.reply_text === 'Call us.')).toHaveLength(senders.length + 1);
    const sent = () => messagesTo(t, tenant.account.id, ...senders, other);
    await waitFor(async () => (await sent()).length >= LIMIT + 1, 20_000, 'the replies let through');
    const fraud = await cli('accounts', 'fraud', '--username', tenant.username, '--json');
    await waitFor(
      async () =>
        (await inboundFrom(t, tenant.account.id, senders, 'reply_state')).every(
          (r) => r.reply_state !== 'pending',
        ),
      20_000,
      'every reply decided',
    );
    await new Promise((r) => setTimeout(r, 1000));
    const recipients = (await sent()).map((m) => m.recipient).sort();
    expect(recipients).toEqual([...senders.slice(0, LIMIT), other].sort());
    expect(JSON.parse(fraud.stdout).blocks).toMatchObject([
      { side: 'live', kind: 'prefix', value: '260966777' },
    ]);
    const metrics = (await t.http().get('/metrics')).text;
    expect(metrics).toContain(
      'bulk_pumping_blocks_total{kind="prefix",source="auto-reply",mode="enforced"} 1',
    );
    expect(metrics).toContain(`bulk_pumping_refused_total{source="auto-reply"} ${senders.length - LIMIT}`);
  });
});
