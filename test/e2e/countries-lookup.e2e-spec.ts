import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubaccount, createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { balanceOf } from '../support/probes.js';
import { MYSQL_ROOT, startTestApp, testEnv, type TestApp } from '../support/test-app.js';

/**
 * Destination countries and the number look-up from the outside: the operators' CLI, the
 * caller's and the parent's routes, a send refused by country, and what the look-up answers
 * (routes decide whether a number has an SMS price, so SMS goes over SMPP here; no worker runs).
 */
const SMS = '/api/v1/json/bulk/sms';
const COUNTRIES = '/api/v1/json/countries';
const LOOKUP = '/api/v1/json/lookup';
const subCountries = (username: string) => `/api/v1/json/subaccounts/${username}/countries`;

let t: TestApp;
let env: Record<string, string>;
let acme: Tenant;

const cli = async (line: string) => {
  const r = await runCli(env, line.split(' '));
  return { ...r, json: r.code === 0 && line.includes('--json') ? JSON.parse(r.stdout) : undefined };
};
const ok = async (line: string) => {
  const r = await cli(line);
  expect(r.code, r.stderr).toBe(0);
  return r;
};
/** Every process re-reads routes, prices and countries within a second. */
const settle = () => new Promise((r) => setTimeout(r, 1100));
const get = (path: string, key: string) => t.http().get(path).set('X-API-Key', key);
const put = (path: string, key: string, body: object) => t.http().put(path).set('X-API-Key', key).send(body);
const send = (key: string, to: string[]) =>
  t.http().post(SMS).set('X-API-Key', key).send({ from: 'ACME', to, message: 'hello' });

beforeAll(async () => {
  t = await startTestApp({ RUN_WORKERS: 'false', SMS_TRANSPORT: 'smpp' });
  env = {
    ...testEnv(t.name),
    LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
    NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
  };
  acme = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.25' } });
  await ok('connectors add --name smsc --url smpp://user:secret@127.0.0.1:2775');
  for (const prefix of ['260', '254', '234', '1']) await ok(`routes add --prefix ${prefix} --connector smsc`);
  await ok(`prices set --username ${acme.username} --channel sms --prefix 26097 --cost-per-unit 0.2`);
  await settle();
}, 60_000);

afterAll(() => t?.close());

describe('accounts countries (CLI) and GET /countries', () => {
  it('shows every country and no premium-rate numbers by default', async () => {
    const res = await get(COUNTRIES, acme.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      username: acme.username,
      mode: 'all',
      countries: [],
      premium: false,
      effective: { mode: 'all', countries: [], premium: false },
    });
  });

  it('--allow limits the sends: a number elsewhere is REJECTED COUNTRY_NOT_ALLOWED, uncharged', async () => {
    const set = await ok(`accounts countries --username ${acme.username} --allow zm,KE --json`);
    expect(set.json).toMatchObject({ mode: 'allow', countries: ['KE', 'ZM'], premium: false });
    await settle();
    expect((await get(COUNTRIES, acme.key)).body).toMatchObject({ mode: 'allow', countries: ['KE', 'ZM'] });
    const before = await balanceOf(t, acme.account.id);
    const res = await send(acme.key, ['260971234567', '254712345678', '2348031234567']);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((d: { status: string; reason?: string }) => d.reason ?? d.status)).toEqual([
      'ACKNOWLEDGED',
      'ACKNOWLEDGED',
      'COUNTRY_NOT_ALLOWED',
    ]);
    // 0.2 to the Zambian mobile (its destination price), 0.25 to the Kenyan; nothing for Nigeria.
    expect(Number(before) - Number(await balanceOf(t, acme.account.id))).toBeCloseTo(0.45, 6);
  });

  it('refuses the same recipients in the XML send', async () => {
    const res = await t
      .http()
      .post('/api/v1/xml/bulk/sms')
      .set('X-API-Key', acme.key)
      .set('Content-Type', 'application/xml')
      .send(
        '<request><from>ACME</from><to>260971234562</to><to>2348031234570</to><message>Hi</message><source>API</source></request>',
      );
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain(
      '<rejected><recipient>2348031234570</recipient><reason>COUNTRY_NOT_ALLOWED</reason></rejected>',
    );
  });

  it('a request with no recipient left is 400 naming the recipient and its reason', async () => {
    const res = await send(acme.key, ['2348031234568']);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'to[0]', message: 'COUNTRY_NOT_ALLOWED' }],
    });
  });

  it('--block, --all, --premium and --no-premium; a human line without --json', async () => {
    expect((await ok(`accounts countries --username ${acme.username} --block NG --json`)).json).toMatchObject(
      {
        mode: 'block',
        countries: ['NG'],
      },
    );
    const premium = await ok(`accounts countries --username ${acme.username} --all --premium`);
    expect(premium.stdout).toMatch(/every country, premium-rate numbers allowed/);
    await settle();
    const res = await send(acme.key, ['2348031234569', '19005550123']);
    expect(res.body.data.map((d: { status: string }) => d.status)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED']);
    const off = await ok(`accounts countries --username ${acme.username} --no-premium --json`);
    expect(off.json).toMatchObject({ mode: 'all', premium: false });
    await settle();
    const before = await balanceOf(t, acme.account.id);
    const refused = await send(acme.key, ['260971234560', '19005550124']);
    expect(refused.body.data[1]).toMatchObject({ status: 'REJECTED', reason: 'PREMIUM_NUMBER' });
    // Only the Zambian mobile is charged (its destination price, 0.2); the premium number is not.
    expect(Number(before) - Number(await balanceOf(t, acme.account.id))).toBeCloseTo(0.2, 6);
  });

  it('shows the setting, changing nothing, with --username alone', async () => {
    const shown = await ok(`accounts countries --username ${acme.username}`);
    expect(shown.stdout).toMatch(
      new RegExp(`^Account ${acme.username}: every country, premium-rate numbers refused`),
    );
    expect((await ok(`accounts countries --username ${acme.username} --json`)).json.mode).toBe('all');
  });

  it('refuses unknown names and two lists at once (exit 2), an unknown account (exit 1)', async () => {
    const unknown = await cli(`accounts countries --username ${acme.username} --allow ZM,XX`);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/XX/);
    expect((await cli(`accounts countries --username ${acme.username} --allow ZM --block NG`)).code).toBe(2);
    expect((await cli('accounts countries --username nobody-here --all')).code).toBe(1);
  });
});

describe('PUT /subaccounts/{username}/countries', () => {
  it("sets a sub-account's countries, always within its parent's", async () => {
    const parent = await createTenant(t, { balances: { sms: '10' }, prices: { sms: '0.25' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '5' } });
    await ok(`accounts countries --username ${parent.username} --allow ZM,NG`);
    const res = await put(subCountries(child.username), parent.key, { allow: ['KE', 'ZM'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      username: child.username,
      mode: 'allow',
      countries: ['KE', 'ZM'],
      premium: false,
      effective: { mode: 'allow', countries: ['ZM'], premium: false },
    });
    await settle();
    expect((await get(COUNTRIES, child.key)).body.effective.countries).toEqual(['ZM']);
    const sent = await send(child.key, ['260971234561', '254712345679']);
    expect(sent.body.data[1]).toMatchObject({ status: 'REJECTED', reason: 'COUNTRY_NOT_ALLOWED' });
    // {} gives it every country again: still only its parent's.
    const all = await put(subCountries(child.username), parent.key, {});
    expect(all.body).toMatchObject({ mode: 'all', effective: { mode: 'allow', countries: ['NG', 'ZM'] } });
  });

  it('answers 400 for bad lists, 404 for another account’s sub-account, 403 for a test key', async () => {
    const parent = await createTenant(t, { test: true });
    const child = await createSubaccount(t, parent);
    const both = await put(subCountries(child.username), parent.key, { allow: ['ZM'], block: ['NG'] });
    expect(both.status).toBe(400);
    expect(both.body.error.details).toEqual([{ field: 'block', message: 'give allow or block, not both' }]);
    const unknown = await put(subCountries(child.username), parent.key, { allow: ['ZM', 'XX'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0].field).toBe('allow[1]');
    expect((await put(subCountries(child.username), parent.key, { allow: 'ZM' })).status).toBe(400);
    expect((await put(subCountries(child.username), parent.key, { alow: ['ZM'] })).status).toBe(400);
    expect((await put(subCountries(child.username), acme.key, { allow: ['ZM'] })).status).toBe(404);
    expect((await put(subCountries(child.username), parent.test!.key, { allow: ['ZM'] })).status).toBe(403);
  });
});

describe('GET /lookup/{number}', () => {
  it("answers a number's country, type and one segment's price for the caller, free", async () => {
    const before = await balanceOf(t, acme.account.id);
    const res = await get(`${LOOKUP}/+260 97 123 4567`, acme.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      number: '260971234567',
      valid: true,
      country: 'ZM',
      calling_code: '260',
      type: 'mobile',
      sms_price: 0.2,
      currency: 'ZMW',
    });
    expect((await get(`${LOOKUP}/254712345678`, acme.key)).body).toMatchObject({
      country: 'KE',
      type: 'mobile',
      sms_price: 0.25,
    });
    expect((await get(`${LOOKUP}/12025550123`, acme.key)).body).toMatchObject({
      country: 'US',
      calling_code: '1',
      type: 'fixed_line_or_mobile',
    });
    expect(await balanceOf(t, acme.account.id)).toBe(before);
  });

  it('shows premium-rate numbers, and a null price where no route goes', async () => {
    expect((await get(`${LOOKUP}/449098790123`, acme.key)).body).toEqual({
      number: '449098790123',
      valid: true,
      country: 'GB',
      calling_code: '44',
      type: 'premium_rate',
      sms_price: null,
      currency: 'ZMW',
    });
    expect((await get(`${LOOKUP}/260999999`, acme.key)).body).toMatchObject({
      valid: false,
      country: 'ZM',
      type: 'unknown',
    });
  });

  it('answers 400 in the error envelope for what is not a number, 401 without a key', async () => {
    const res = await get(`${LOOKUP}/not-a-number`, acme.key);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', details: [{ field: 'number' }] },
    });
    expect((await get(`${LOOKUP}/0971234567`, acme.key)).status).toBe(400);
    expect((await t.http().get(`${LOOKUP}/260971234567`)).status).toBe(401);
  });
});
