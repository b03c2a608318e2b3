import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Not test-app.js: loading the app's module registers data source names, and each CLI context
// run in process would warn of a duplicate on its output.
import { cliDatabaseEnv, jsonCli } from '../support/cli-database.js';
import { dropLocalState } from '../support/local-state.js';

const { name, env } = cliDatabaseEnv();
const cli = jsonCli(env);

describe('admin CLI: sub-accounts and transfers', () => {
  beforeAll(async () => {
    expect((await cli('db migrate --json')).code).toBe(0);
    expect(
      (
        await cli(
          'accounts create --username reseller --password correct-horse-battery --currency USD --json',
        )
      ).code,
    ).toBe(0);
    expect((await cli('accounts credit --username reseller --channel sms --amount 10 --json')).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await dropLocalState(name);
  });

  it("accounts create --parent makes a sub-account in the parent's currency, without a password", async () => {
    const created = await cli('accounts create --username client-a --parent reseller --json');
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ username: 'client-a', currency: 'USD', parent: 'reseller' });
    const shown = await cli('accounts show client-a --json');
    expect(shown.json).toMatchObject({ parent: 'reseller', currency: 'USD' });
  });

  it('refuses a sub-account of a sub-account, and another currency than the parent’s (exit 1)', async () => {
    await cli('accounts create --username client-b --parent reseller --json');
    const nested = await cli('accounts create --username client-b1 --parent client-b --json');
    expect(nested.code).toBe(1);
    expect(nested.stderr).toMatch(/client-b is a sub-account/);
    const currency = await cli('accounts create --username client-c --parent reseller --currency EUR --json');
    expect(currency.code).toBe(1);
    expect(currency.stderr).toMatch(/parent's currency \(USD\)/);
    const orphan = await cli('accounts create --username client-d --parent nobody --json');
    expect(orphan.code).toBe(1);
  });

  it('accounts list shows the parent of each sub-account (column and JSON)', async () => {
    await cli('accounts create --username client-e --parent reseller --json');
    const list = await cli('accounts list --json');
    const byName = Object.fromEntries(
      list.json.accounts.map((a: { username: string; parent: string | null }) => [a.username, a.parent]),
    );
    expect(byName['client-e']).toBe('reseller');
    expect(byName.reseller).toBeNull();
    const table = await cli('accounts list');
    expect(table.stdout).toMatch(/PARENT/);
    expect(table.stdout).toMatch(/client-e\s+reseller/);
  });

  it('accounts transfer moves credit either way between a parent and its sub-account, exactly', async () => {
    await cli('accounts create --username client-f --parent reseller --json');
    const down = await cli(
      'accounts transfer --from reseller --to client-f --channel sms --amount 2.5 --json',
    );
    expect(down.code).toBe(0);
    expect(down.json).toMatchObject({
      from: 'reseller',
      to: 'client-f',
      channel: 'sms',
      amount: 2.5,
      to_balance: 2.5,
      currency: 'USD',
    });
    const up = await cli('accounts transfer --from client-f --to reseller --channel sms --amount 0.5 --json');
    expect(up.code).toBe(0);
    expect(up.json).toMatchObject({ from_balance: 2 });
    expect((await cli('accounts show client-f --json')).json.channels.sms.balance).toBe(2);
  });

  it('refuses a transfer the payer cannot cover, and one between unrelated accounts (exit 1, nothing moved)', async () => {
    await cli('accounts create --username client-g --parent reseller --json');
    const before = (await cli('accounts show reseller --json')).json.channels.sms.balance;
    const short = await cli(
      'accounts transfer --from client-g --to reseller --channel sms --amount 1 --json',
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/insufficient balance: client-g's sms balance is 0\.000000 USD/);
    const sideways = await cli(
      'accounts transfer --from client-a --to client-g --channel sms --amount 1 --json',
    );
    expect(sideways.code).toBe(1);
    expect(sideways.stderr).toMatch(/only between a parent and its sub-accounts/);
    expect((await cli('accounts show reseller --json')).json.channels.sms.balance).toBe(before);
    const bad = await cli('accounts transfer --from reseller --to client-g --channel sms --amount -1 --json');
    expect(bad.code).toBe(2);
  });
  it("keys create|update refuse a sub-account key's --rate-limit above the parent's keys (exit 1)", async () => {
    await cli('accounts create --username client-h --parent reseller --json');
    expect((await cli('keys create --username reseller --name main --rate-limit 20/1 --json')).code).toBe(0);
    const fast = await cli('keys create --username client-h --name fast --rate-limit 999999999/1 --json');
    expect(fast.code).toBe(1);
    expect(fast.stderr).toMatch(/above what the parent account's keys allow/);
    const ok = await cli('keys create --username client-h --name ok --rate-limit 20/1 --json');
    expect(ok.code).toBe(0);
    expect((await cli(`keys update ${ok.json.id} --rate-limit 40/1 --json`)).code).toBe(1);
  });
});
