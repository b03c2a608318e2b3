import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUMPING_SETTINGS_TTL_MS } from '../../src/modules/fraud/pumping/pumping.guard.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { balanceOf } from '../support/probes.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';

const VERIFY = '/api/v1/json/verify';

/** The pumping guard of verification codes, as a client and an operator see it. */
describe('pumping guard: SUSPECTED_PUMPING and accounts fraud', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  const start = (tenant: Tenant, to: string, key = tenant.key) =>
    t.http().post(VERIFY).set('X-API-Key', key).send({ to });
  const approve = (tenant: Tenant, id: string, code: string) =>
    t.http().post(`${VERIFY}/${id}/check`).set('X-API-Key', tenant.test!.key).send({ code });
  const fraud = async (tenant: Tenant, ...args: string[]) => {
    const r = await runCli(testEnv(t.name), [
      'accounts',
      'fraud',
      '--username',
      tenant.username,
      ...args,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    // The API process follows a change of the settings within their TTL.
    if (args.length) await new Promise((done) => setTimeout(done, PUMPING_SETTINGS_TTL_MS + 100));
    return JSON.parse(r.stdout) as {
      mode: string;
      safe_list: string[];
      blocks: Array<{ side: string; kind: string; value: string; until: string }>;
      lifted?: number;
    };
  };

  it('blocks exactly the hot prefixes of a simulated pumping run', async () => {
    const tenant = await createTenant(t, { test: true });
    const testKey = tenant.test!.key;
    // 30 ordinary prefixes, 3 codes each, every one entered: real users.
    for (let p = 0; p < 30; p++)
      for (let i = 0; i < 3; i++) {
        const res = await start(tenant, `26097${String(1000 + p)}${String(100 + i)}`, testKey);
        expect(res.status).toBe(201);
        expect((await approve(tenant, res.body.verification_id, res.body.test_code)).body.status).toBe(
          'approved',
        );
      }
    // 3 hot prefixes: 12 codes each to consecutive numbers, never entered.
    const hot = ['260966001', '260966002', '260966003'];
    const statuses: number[][] = [];
    for (const prefix of hot) {
      const row: number[] = [];
      for (let i = 0; i < 12; i++)
        row.push((await start(tenant, `${prefix}${String(100 + i)}`, testKey)).status);
      statuses.push(row);
    }
    // The 11th code to a prefix in an hour trips the guard; the prefix then stays blocked.
    for (const row of statuses) expect(row).toEqual([...Array(10).fill(201), 429, 429]);

    const refused = await start(tenant, '260966001999', testKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: 'SUSPECTED_PUMPING',
      details: [{ field: 'to', message: 'prefix 260966001 blocked' }],
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);

    const shown = await fraud(tenant);
    expect(shown.mode).toBe('enforce');
    expect(shown.blocks.map((b) => `${b.side}:${b.kind}:${b.value}`).sort()).toEqual(
      hot.map((p) => `test:prefix:${p}`),
    );
    // The ordinary prefixes still get codes; the live side is untouched by the test side's blocks.
    expect((await start(tenant, '260971000555', testKey)).status).toBe(201);
    expect((await start(tenant, '260966001555')).status).toBe(201);

    const metrics = (await t.http().get('/metrics')).text;
    expect(metrics).toContain(
      'bulk_pumping_blocks_total{kind="prefix",source="verification",mode="enforced"} 3',
    );
  });

  it('charges and sends nothing for a refused code, and lets safe-listed numbers through', async () => {
    const tenant = await createTenant(t, { test: true, prices: { sms: '0.25' } });
    for (let i = 0; i < 10; i++)
      expect((await start(tenant, `260955001${String(100 + i)}`)).status).toBe(201);
    const before = await balanceOf(t, tenant.account.id);
    expect((await start(tenant, '260955001200')).status).toBe(429);
    expect(await balanceOf(t, tenant.account.id)).toBe(before);

    // Refused codes take no place of the number's cap of 5 per 10 minutes.
    for (let i = 0; i < 5; i++) expect((await start(tenant, '260955001301')).status).toBe(429);

    expect((await fraud(tenant, '--safe-list', '+260 955 001 300')).safe_list).toEqual(['260955001300']);
    // A safe-listed number passes the guard, and is still held to the cap.
    for (let i = 0; i < 5; i++) expect((await start(tenant, '260955001300')).status).toBe(201);
    const sixth = await start(tenant, '260955001300');
    expect(sixth.status).toBe(429);
    expect(sixth.body.error.code).toBe('TOO_MANY_VERIFICATIONS');
    expect((await start(tenant, '260955001301')).status).toBe(429);

    const cleared = await fraud(tenant, '--clear');
    expect(cleared).toMatchObject({ lifted: 1, blocks: [] });
    for (let i = 0; i < 5; i++) expect((await start(tenant, '260955001301')).status).toBe(201);
  });

  it('in monitor mode logs and counts would-be blocks and refuses nothing', async () => {
    const tenant = await createTenant(t, { test: true });
    expect((await fraud(tenant, '--monitor')).mode).toBe('monitor');
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await start(tenant, `260944001${String(100 + i)}`)).status);
    expect(statuses).toEqual(Array(12).fill(201));
    expect((await fraud(tenant)).blocks).toEqual([]);
    const metrics = (await t.http().get('/metrics')).text;
    expect(metrics).toContain(
      'bulk_pumping_blocks_total{kind="prefix",source="verification",mode="monitor"} 2',
    );
    expect((await fraud(tenant, '--enforce')).mode).toBe('enforce');
    expect((await start(tenant, '260944001200')).status).toBe(429);
  });

  it('blocks a country whose last 100 verifications were under a tenth approved', async () => {
    const tenant = await createTenant(t, { test: true });
    const testKey = tenant.test!.key;
    // 100 Kenyan codes over 100 prefixes (so no prefix trips), 5 approved and 95 canceled.
    for (let i = 0; i < 100; i++) {
      const res = await start(tenant, `2547${String(10000 + i)}123`, testKey);
      expect(res.status).toBe(201);
      if (i < 5) await approve(tenant, res.body.verification_id, res.body.test_code);
      else await t.http().post(`${VERIFY}/${res.body.verification_id}/cancel`).set('X-API-Key', testKey);
    }
    const refused = await start(tenant, '254799999123', testKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toEqual([{ field: 'to', message: 'country KE blocked' }]);
    expect((await start(tenant, '260971999123', testKey)).status).toBe(201);
    expect((await fraud(tenant)).blocks).toMatchObject([{ side: 'test', kind: 'country', value: 'KE' }]);
  });
});
