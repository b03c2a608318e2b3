import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Not test-app.js: loading the app's module registers data source names, and each CLI context
// run in process would warn of a duplicate on its output.
import { cliDatabaseEnv, jsonCli } from '../support/cli-database.js';
import { dropLocalState } from '../support/local-state.js';

const { name, env } = cliDatabaseEnv();
const cli = jsonCli(env);

describe('admin CLI: test keys and spend limits', () => {
  beforeAll(async () => {
    expect((await cli('db migrate --json')).code).toBe(0);
    expect(
      (await cli('accounts create --username limits --password correct-horse-battery --json')).code,
    ).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await dropLocalState(name);
  });

  it('keys create --mode test makes a bmk_test_ key shown as mode test by create, show and list', async () => {
    const created = await cli('keys create --username limits --name sandbox --mode test --json');
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ mode: 'test', daily_limit: null });
    expect(created.json.key_prefix).toBe(created.json.key.slice(0, 16));
    expect(created.json.key).toMatch(/^bmk_test_/);
    expect((await cli(`keys show ${created.json.id} --json`)).json.mode).toBe('test');
    const live = await cli('keys create --username limits --name production --json');
    expect(live.json.mode).toBe('live');
    const list = await cli('keys list --username limits --json');
    expect(list.json.keys.map((k: { mode: string }) => k.mode)).toEqual(['test', 'live']);
    const table = await cli('keys list --username limits');
    expect(table.stdout).toMatch(/MODE/);
  });

  it('keeps a test key a test key when it is rotated', async () => {
    const created = await cli('keys create --username limits --name rotating --mode test --json');
    const rotated = await cli(`keys rotate ${created.json.id} --json`);
    expect(rotated.json).toMatchObject({ mode: 'test' });
    expect(rotated.json.key).toMatch(/^bmk_test_/);
  });

  it('refuses an unknown mode as a usage error (exit 2)', async () => {
    const r = await cli('keys create --username limits --name x --mode staging');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/live or test/);
  });

  it("sets, shows and clears a key's daily limit (create --daily-limit, update --daily-limit N|none)", async () => {
    const created = await cli('keys create --username limits --name capped --daily-limit 50 --json');
    expect(created.json.daily_limit).toBe(50);
    const changed = await cli(`keys update ${created.json.id} --daily-limit 12.5 --json`);
    expect(changed.json.daily_limit).toBe(12.5);
    expect((await cli(`keys show ${created.json.id} --json`)).json.daily_limit).toBe(12.5);
    expect((await cli(`keys limit ${created.json.id} --json`)).json).toEqual({
      id: created.json.id,
      name: 'capped',
      username: 'limits',
      mode: 'live',
      daily_limit: 12.5,
      day: new Date().toISOString().slice(0, 10),
      spent_today: 0,
      remaining_today: 12.5,
    });
    expect((await cli(`keys limit ${created.json.id} --daily 7 --json`)).json.daily_limit).toBe(7);
    expect((await cli(`keys limit ${created.json.id} --clear --json`)).json.daily_limit).toBeNull();
    expect((await cli(`keys update ${created.json.id} --daily-limit 12.5 --json`)).code).toBe(0);
    const cleared = await cli(`keys update ${created.json.id} --daily-limit none --json`);
    expect(cleared.json.daily_limit).toBeNull();
    const bad = await cli(`keys update ${created.json.id} --daily-limit -3`);
    expect(bad.code).toBe(2);
  });

  it("sets, shows and clears the account's daily limit with today's spend (accounts limit)", async () => {
    const shown = await cli('accounts limit --username limits --json');
    expect(shown.code).toBe(0);
    expect(shown.json).toEqual({
      username: 'limits',
      currency: 'ZMW',
      daily_limit: null,
      day: new Date().toISOString().slice(0, 10),
      spent_today: 0,
      remaining_today: null,
    });
    const set = await cli('accounts limit --username limits --daily 500.00 --json');
    expect(set.json).toMatchObject({ daily_limit: 500, remaining_today: 500 });
    expect((await cli('accounts limit --username limits --json')).json.daily_limit).toBe(500);
    const text = await cli('accounts limit --username limits');
    expect(text.stdout).toMatch(/daily_limit:\s+500\.000000/);
    const cleared = await cli('accounts limit --username limits --clear --json');
    expect(cleared.json.daily_limit).toBeNull();
    expect((await cli('accounts limit --username limits --daily abc')).code).toBe(2);
    expect((await cli('accounts limit --username nobody --json')).code).toBe(1);
  });
});
