import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli, type CliRun } from '../support/cli-in-process.js';
import { messagesOfRequest } from '../support/probes.js';
import { repeatedEvents, requestMessages } from '../support/message-probes.js';
import { netSmppMissing, startNetSmppSmsc, type NetSmppSmsc } from '../support/net-smpp-smsc.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { MYSQL_ROOT, testEnv } from '../support/test-env.js';
import { waitFor } from '../support/wait.js';

/**
 * Routing across two SMSCs at once: our SMPP peer and the independent Net::SMPP SMSC (Debian's
 * libnet-smpp-perl). Connectors, routes and prices are set with the CLI while the app and its
 * in-process workers run, with no SMPP_URL: a destination no route matches has no connector.
 */

const missing = netSmppMissing();
if (missing) console.warn(`\n!!! SKIPPING the two-SMSC routing tests: ${missing}\n`);

const SMS = '/api/v1/json/bulk/sms';
const METRICS = 'metrics-token-0123456789abcdef';

describe.skipIf(missing !== null)('routing across SMSCs', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let peer: SmppPeer;
  let perl: NetSmppSmsc;
  let env: Record<string, string>;

  const cli = async (...args: string[]): Promise<CliRun> => runCli(env, args);
  const ok = async (...args: string[]) => {
    const r = await cli(...args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };

  async function send(to: string[], key = tenant.key, extra: Record<string, unknown> = {}) {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', key)
      .send({ from: 'ACME', to, message: 'routed', ...extra });
    return res;
  }

  const balance = async (who: Tenant) =>
    (
      await t
        .http()
        .post('/api/v1/json/balance')
        .set('X-API-Key', who.key)
        .send({ username: who.username, password: who.password })
    ).body as { balances: { sms: { balance_value: number; cost_per_unit: number } } };

  async function finalStates(ref: string) {
    const read = () => requestMessages(t, ref, 'uuid', 'recipient', 'status', 'reason', 'connector');
    await waitFor(
      async () => (await read()).every((m) => m.status !== 'ACKNOWLEDGED'),
      30_000,
      'all handed over',
    );
    return read();
  }

  beforeAll(async () => {
    peer = await startSmppPeer();
    perl = await startNetSmppSmsc();
    t = await startTestApp({ RUN_WORKERS: 'true', SMS_TRANSPORT: 'smpp', METRICS_TOKEN: METRICS });
    env = {
      ...testEnv(t.name),
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
    };
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.10' } });
    other = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.10' } });
    await ok('connectors', 'add', '--name', 'peer', '--url', peer.url, '--tps', '200', '--window', '20');
    await ok('connectors', 'add', '--name', 'perl', '--url', perl.url);
    await ok('routes', 'add', '--prefix', '26097', '--connector', 'peer');
    await ok('routes', 'add', '--prefix', '+26096', '--connector', 'perl');
    // Every process re-reads routes within a second.
    await new Promise((r) => setTimeout(r, 1100));
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await peer?.close();
    await perl?.close();
  });

  it('sends each destination to the connector of its longest prefix, and the lookup shows the connector', async () => {
    const res = await send(['+260971000001', '+260961000002']);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const states = await finalStates(res.body.api_reference);
    expect(states.map((s) => [s.recipient, s.status, s.connector])).toEqual([
      ['260971000001', 'SENT', 'peer'],
      ['260961000002', expect.stringMatching(/^(SENT|DELIVERED|UNDELIVERED)$/), 'perl'],
    ]);
    expect(peer.received.map((r) => r.destination)).toContain('260971000001');
    expect(perl.submits.map((s) => s.destination)).toContain('260961000002');
    const lookup = await t.http().get(`/api/v1/json/messages/${states[1].uuid}`).set('X-API-Key', tenant.key);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ connector: 'perl', cost_per_unit: 0.1 });
  });

  it("rejects a destination no route matches with NO_ROUTE and does not charge it; an account's own route serves only that account", async () => {
    const before = await balance(tenant);
    const res = await send(['+260971000003', '+441234567890']);
    expect(res.status).toBe(200);
    const rows = await messagesOfRequest(t, res.body.api_reference);
    expect(rows[1]).toMatchObject({
      recipient: '441234567890',
      status: 'REJECTED',
      reason: 'NO_ROUTE',
      units: 0,
    });
    expect(Number(rows[1].cost)).toBe(0);
    const after = await balance(tenant);
    expect(before.balances.sms.balance_value - after.balances.sms.balance_value).toBeCloseTo(0.1, 6);

    const none = await send(['+441234567891']);
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.body)).toContain('NO_ROUTE');

    await ok('routes', 'add', '--prefix', '44', '--connector', 'perl', '--username', tenant.username);
    await waitFor(async () => (await send(['+441234567892'])).status === 200, 5000, 'the new route in use');
    expect((await send(['+441234567893'], other.key)).status).toBe(400);
    await ok('routes', 'remove', '--prefix', '44', '--username', tenant.username);
  });

  it('prices each recipient by the longest matching destination prefix of the account; the balance keeps the channel price', async () => {
    await ok(
      'prices',
      'set',
      '--username',
      tenant.username,
      '--channel',
      'sms',
      '--prefix',
      '26097',
      '--cost-per-unit',
      '0.25',
    );
    const listed = await ok('prices', 'list', '--username', tenant.username, '--json');
    expect(JSON.parse(listed.stdout).prices).toEqual([
      { channel: 'sms', prefix: '26097', cost_per_unit: 0.25 },
    ]);
    await new Promise((r) => setTimeout(r, 1100)); // the API re-reads prices once a second
    const res = await send(['+260971000010', '+260961000011']);
    expect(res.status).toBe(200);
    const rows = await requestMessages(t, res.body.api_reference, 'uuid', 'cost');
    expect(rows.map((r) => Number(r.cost))).toEqual([0.25, 0.1]);
    const lookup = await t.http().get(`/api/v1/json/messages/${rows[0].uuid}`).set('X-API-Key', tenant.key);
    expect(lookup.body.cost_per_unit).toBe(0.25);
    const bal = await balance(tenant);
    expect(bal.balances.sms.cost_per_unit).toBe(0.1);
    await ok('prices', 'remove', '--username', tenant.username, '--channel', 'sms', '--prefix', '26097');
  });

  it('connectors list shows each bind as the workers report it, within a few seconds', async () => {
    const list = await waitFor(
      async () => {
        const r = await ok('connectors', 'list', '--json');
        const c = JSON.parse(r.stdout).connectors as Array<{
          name: string;
          bound: number;
          workers: number;
          url: string;
        }>;
        return c.every((x) => x.bound === 1) ? c : null;
      },
      8000,
      'both connectors reported bound',
    );
    expect(list.map((c) => c.name)).toEqual(['peer', 'perl']);
    expect(list[0].url).not.toContain('secret');
    const table = await ok('connectors', 'list');
    expect(table.stdout).toMatch(/^NAME\s+ENABLED\s+BOUND/);
  });

  it('refuses malformed connector, route and price options with exit 2, and unknown names with exit 1', async () => {
    expect((await cli('connectors', 'add', '--name', 'x', '--url', 'http://nope')).code).toBe(2);
    expect((await cli('connectors', 'add', '--name', 'x', '--url', peer.url, '--tps', '-1')).code).toBe(2);
    expect((await cli('connectors', 'add', '--name', 'default', '--url', peer.url)).code).toBe(1);
    expect((await cli('connectors', 'add', '--name', 'peer', '--url', peer.url)).code).toBe(1);
    expect((await cli('routes', 'add', '--prefix', '26x', '--connector', 'peer')).code).toBe(2);
    expect((await cli('routes', 'add', '--prefix', '1', '--connector', 'nobody')).code).toBe(1);
    expect((await cli('connectors', 'remove', 'peer')).code).toBe(1); // it still has routes
    expect(
      (
        await cli(
          'prices',
          'set',
          '--username',
          tenant.username,
          '--channel',
          'sms',
          '--prefix',
          '1',
          '--cost-per-unit',
          'x',
        )
      ).code,
    ).toBe(2);
  });

  it('throttling answers slow the connector down and fail no message', async () => {
    peer.options.throttleEvery = 4;
    try {
      const to = Array.from({ length: 40 }, (_, i) => `+2609720000${String(i).padStart(2, '0')}`);
      const res = await send(to);
      const states = await finalStates(res.body.api_reference);
      expect(states.filter((s) => s.status !== 'SENT')).toEqual([]);
      expect(peer.stats.throttled).toBeGreaterThan(0);
      const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS}`);
      expect(metrics.text).toMatch(
        /bulk_connector_messages_total\{connector="peer",outcome="throttled"\} [1-9]/,
      );
      expect(metrics.text).toMatch(/bulk_connector_bound\{connector="peer"\} 1/);
    } finally {
      peer.options.throttleEvery = 0;
    }
  });

  it('an API-only process without SMPP_URL judges the SMSCs by the binds the workers report', async () => {
    const api = await startTestApp({ RUN_WORKERS: 'false', SMS_TRANSPORT: 'smpp' }, t.name);
    try {
      const sms = async () =>
        (await api.http().get('/health/detailed')).body.checks.external_services.sms_server as {
          status: string;
          message: string;
        };
      const reaches = (status: string, message: RegExp) =>
        waitFor(
          async () => {
            const now = await sms();
            return now.status === status && message.test(now.message) ? now : null;
          },
          15_000,
          `sms_server ${status} ${message}`,
        );
      await reaches('healthy', /^2 of 2 enabled connector\(s\) bound by the workers \(peer, perl\)$/);
      await ok('connectors', 'disable', 'perl');
      await ok('connectors', 'disable', 'peer');
      await reaches('unhealthy', /^no SMSC configured/);
      await ok('connectors', 'enable', 'peer');
      await ok('connectors', 'enable', 'perl');
      await reaches('healthy', /^2 of 2 enabled/);
    } finally {
      await api.app.close();
    }
  }, 60_000);

  it('fails over in priority order when a connector goes away mid-run: every message SENT once, none lost, none doubled', async () => {
    // A second route on the same prefix, tried after the peer.
    await ok('routes', 'add', '--prefix', '26097', '--connector', 'perl', '--priority', '2');
    await new Promise((r) => setTimeout(r, 2500)); // workers re-read routes within 2 s
    const before = peer.received.length;
    peer.options.dropAfter = 30;
    peer.options.respondDelayMs = 5;
    const to = Array.from({ length: 150 }, (_, i) => `+26097300${String(i).padStart(4, '0')}`);
    const res = await send(to);
    expect(res.status).toBe(200);
    // The peer answers 30 submits, drops the bind, and stops listening: the connector is gone.
    await waitFor(async () => peer.options.dropAfter === undefined, 15_000, 'the peer to drop its bind');
    await peer.close();
    const states = await finalStates(res.body.api_reference);
    // Net::SMPP sends receipts, so some have moved on from SENT: none FAILED or REJECTED.
    expect(states.filter((s) => !['SENT', 'DELIVERED', 'UNDELIVERED'].includes(s.status))).toEqual([]);
    const atPeer = new Set(peer.received.slice(before).map((r) => r.destination));
    const atPerl = new Set(
      perl.submits.filter((s) => s.destination.startsWith('26097300')).map((s) => s.destination),
    );
    for (const s of states) {
      const digits = s.recipient;
      // Delivered by exactly one SMSC, and recorded as sent through that one.
      expect(Number(atPeer.has(digits)) + Number(atPerl.has(digits)), digits).toBe(1);
      expect(s.connector, digits).toBe(atPeer.has(digits) ? 'peer' : 'perl');
    }
    expect(atPeer.size).toBeGreaterThan(0);
    expect(atPerl.size).toBeGreaterThan(0);
    expect(await repeatedEvents(t, res.body.api_reference, 'SENT')).toEqual([]);
  }, 60_000);
});
