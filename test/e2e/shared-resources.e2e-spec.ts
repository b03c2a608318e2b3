import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { MYSQL_ROOT, startTestApp, testEnv, type TestApp } from '../support/test-app.js';

const EXPORT = '/api/v1/json/messages/export';
const FORMULA_REF = '=HYPERLINK("http://attacker.example/x","click")';
const FORMULA_EMAIL = "=cmd|'/Ccalc'!A0@example.com";

describe('what one tenant writes cannot run in another reader’s spreadsheet', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenant(t);
    const sms = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', a.key)
      .send({ from: 'ACME', to: '260971000001', message: 'Hi', user_reference_id: FORMULA_REF });
    expect(sms.status).toBe(200);
    const email = await t
      .http()
      .post('/api/v1/json/bulk/email')
      .set('X-API-Key', a.key)
      .send({
        from: 'noreply@acme.example.com',
        subject: 'Hi',
        email_body: '<p>Hi</p>',
        to: [FORMULA_EMAIL],
        user_reference_id: '@SUM(1+1)',
      });
    expect(email.status).toBe(200);
  });
  afterAll(async () => t?.close());

  /** Every cell of the exported CSV that starts with a character a spreadsheet runs as a formula. */
  const formulaCells = (csv: string) =>
    csv
      .trimEnd()
      .split('\n')
      .flatMap((line) => line.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/))
      .map((cell) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell))
      .filter((cell) => /^[=+\-@\t\r]/.test(cell));

  it('neutralises formula cells in the API export with a leading quote', async () => {
    const res = await t.http().get(EXPORT).set('X-API-Key', a.key).buffer(true);
    expect(res.status).toBe(200);
    expect(formulaCells(res.text)).toEqual([]);
    expect(res.text).toContain(`"'${FORMULA_REF.replace(/"/g, '""')}"`);
    expect(res.text).toContain(`'${FORMULA_EMAIL}`);
    expect(res.text).toContain("'@SUM(1+1)");
  });

  it('neutralises them in the CLI export too', async () => {
    const env = {
      ...testEnv(t.name),
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
    };
    const r = await runCli(env, ['messages', 'export', '--username', a.username]);
    expect(r.code).toBe(0);
    expect(formulaCells(r.stdout)).toEqual([]);
    expect(r.stdout).toContain(`'${FORMULA_EMAIL}`);
  });
});

describe('inbound simulate --text takes any value', () => {
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    env = {
      ...testEnv(t.name),
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
    };
    const a = await createTenant(t);
    const added = await runCli(env, ['numbers', 'add', '--username', a.username, '--number', '260955000777']);
    expect(added.code).toBe(0);
  });
  afterAll(async () => t?.close());

  it.each(['help', '--x', '-h', '--help'])('stores the text %j as written', async (text) => {
    const r = await runCli(env, [
      'inbound',
      'simulate',
      '--from',
      '260971230001',
      '--to',
      '260955000777',
      '--text',
      text,
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).inbound[0].text).toBe(text);
  });
});
