import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Test, type TestingModule } from '@nestjs/testing';
import { createConnection, type Connection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ConfigModule } from '../../src/config/config.module.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import {
  accountFields,
  addRequestLogs,
  apiKeyHashHex,
  apiKeysNamed,
  ledgerTotals,
  requestLogs,
  requestLogsBefore,
  storedChannel,
} from '../support/account-probes.js';
import { runCli } from '../support/cli-in-process.js';
// Not test-app.js: loading the app's module registers data source names, and each CLI context
// run in process would warn of a duplicate on its output.
import { dropLocalState as dropTestState } from '../support/local-state.js';
import { throughConnection, type Probed } from '../support/message-probes.js';
import { MYSQL_ROOT, testEnv, uniqueName } from '../support/test-env.js';

/** The compiled CLI, as an operator runs it (global setup builds dist/ first). */
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

const name = uniqueName();
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  ...testEnv(name),
  // Explicit, so a .env in the working directory cannot point the CLI elsewhere.
  LOG_DATABASE_URL: `${MYSQL_ROOT}/${name}_log`,
  NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${name}_notification`,
};

function parseJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

/**
 * `cli('keys show 12 --json')`; arguments that contain spaces go after the line. Runs the
 * CLI's module in this process; `binary` below runs the compiled file where the process matters.
 */
async function cli(line = '', ...more: string[]): Promise<CliResult> {
  const r = await runCli(env, [...line.split(/\s+/).filter(Boolean), ...more]);
  return { ...r, json: parseJson(r.stdout) };
}

/** The same command line, run as an operator runs it: `node dist/cli.js ...`, its output piped. */
function binary(line = '', ...more: string[]): Promise<CliResult> {
  const args = [...line.split(/\s+/).filter(Boolean), ...more];
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, cwd: ROOT, timeout: 25_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

const sha256Hex = (key: string) => createHash('sha256').update(key).digest('hex');
const FUTURE = new Date(Date.now() + 30 * 86_400_000).toISOString();

describe('admin CLI (node dist/cli.js)', () => {
  let db: Connection;
  let stored: Probed;
  let alice: CliResult;

  beforeAll(async () => {
    // The CLI never creates a database by itself: `db migrate` first, as an operator would.
    expect((await binary('db migrate --json')).code).toBe(0);
    alice = await binary('accounts create --username alice --password correct-horse --currency usd --json');
    db = await createConnection({ host: '127.0.0.1', user: 'root', database: name });
    stored = throughConnection(db, name);
  });

  afterAll(async () => {
    await db?.end();
    await dropTestState(name);
  });

  describe('accounts', () => {
    it('create prints client_id, username and currency as one JSON object, and nothing else', () => {
      expect(alice.code).toBe(0);
      expect(alice.stderr).toBe('');
      expect(alice.stdout.trim().split('\n')).toHaveLength(1);
      expect(alice.json).toEqual({
        client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        username: 'alice',
        currency: 'USD',
      });
    });

    it('refuses a duplicate username with exit 1 and a message on stderr', async () => {
      const r = await cli('accounts create --username alice --password another-password --json');
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/already exists/);
    });

    it('credit adds topup ledger rows and show reports the balance per channel', async () => {
      const first = await cli('accounts credit --username alice --channel sms --amount 100.50 --json');
      expect(first.code).toBe(0);
      expect(first.json).toMatchObject({
        username: 'alice',
        channel: 'sms',
        amount: 100.5,
        balance: 100.5,
      });
      // The account as the first argument, as `accounts show` takes it: both forms work everywhere.
      const second = await cli('accounts credit alice --channel sms --amount 0.25 --json');
      expect(second.json.balance).toBe(100.75);

      const show = await cli('accounts show alice --json');
      expect(show.code).toBe(0);
      expect(show.json).toMatchObject({
        client_id: alice.json.client_id,
        username: 'alice',
        status: 'active',
        currency: 'USD',
        created_at: expect.any(String),
        channels: {
          sms: { balance: 100.75, cost_per_unit: 0.25 },
          email: { balance: 0, cost_per_unit: expect.any(Number) },
          chat: { balance: 0, cost_per_unit: expect.any(Number) },
        },
      });
      const flagged = await cli('accounts show --username alice --json');
      expect(flagged.json).toEqual(show.json);
      expect(await ledgerTotals(stored, { kind: 'topup', channel: 'sms' })).toEqual({
        n: 2,
        total: '100.750000',
      });
    });

    it('refuses a bad channel, a bad amount or a missing option with exit 2, an unknown user with exit 1', async () => {
      const [fax, zero, missing, nobody] = await Promise.all([
        cli('accounts credit --username alice --channel fax --amount 1 --json'),
        cli('accounts credit --username alice --channel sms --amount 0 --json'),
        cli('accounts credit --username alice --channel sms --json'),
        cli('accounts credit --username nobody --channel sms --amount 1 --json'),
      ]);
      for (const r of [fax, zero, missing]) {
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(/error/);
      }
      expect(nobody.code).toBe(1);
      expect(nobody.stderr).toMatch(/no account named nobody/);
    });

    it('takes the account as the first argument or as --username on every account command, one of them, once', async () => {
      const suspended = await cli('accounts suspend --username alice --json');
      const activated = await cli('accounts activate alice --json');
      const [secret, both, neither] = await Promise.all([
        cli('accounts callback-secret alice --json'),
        cli('accounts show alice --username bob --json'),
        cli('accounts show --json'),
      ]);
      expect(suspended.json).toMatchObject({ username: 'alice' });
      expect(activated.json).toMatchObject({ username: 'alice', status: 'active' });
      expect(secret.json).toMatchObject({ username: 'alice', callback_secret: expect.any(String) });
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/two accounts given: alice and --username bob/);
      expect(neither.code).toBe(2);
      expect(neither.stderr).toMatch(/missing the account/);
    });

    it('price sets the cost per unit of one channel', async () => {
      const r = await cli('accounts price --username alice --channel email --cost-per-unit 0.015 --json');
      expect(r.code).toBe(0);
      expect(r.json).toEqual({ username: 'alice', channel: 'email', cost_per_unit: 0.015 });
      const { id } = await accountFields(stored, { username: 'alice' }, 'id');
      expect((await storedChannel(stored, String(id), 'email')).cost_per_unit).toBe('0.015000');
      const bad = await cli('accounts price --username alice --channel email --cost-per-unit 0.1234567');
      expect(bad.code).toBe(2);
    });

    it('suspend and activate change the status that list and show report', async () => {
      const suspended = await cli('accounts suspend alice --json');
      expect(suspended.json).toEqual({ username: 'alice', status: 'suspended' });
      const list = await cli('accounts list --json');
      expect(list.json.accounts).toEqual([
        expect.objectContaining({ username: 'alice', status: 'suspended' }),
      ]);
      const [active, nobody] = await Promise.all([
        cli('accounts activate alice --json'),
        cli('accounts suspend nobody'),
      ]);
      expect(active.json).toEqual({ username: 'alice', status: 'active' });
      expect(nobody.code).toBe(1);
    });

    it('callback-secret prints the stored secret and --rotate replaces it', async () => {
      const before = await cli('accounts callback-secret --username alice --json');
      expect(before.json.callback_secret).toMatch(/^[0-9a-f]{64}$/);
      const rotated = await cli('accounts callback-secret --username alice --rotate --json');
      expect(rotated.json.callback_secret).toMatch(/^[0-9a-f]{64}$/);
      expect(rotated.json.callback_secret).not.toBe(before.json.callback_secret);
      expect(await accountFields(stored, { username: 'alice' }, 'callback_secret')).toEqual({
        callback_secret: rotated.json.callback_secret,
      });
    });
  });

  describe('keys', () => {
    let created: CliResult;

    beforeAll(async () => {
      created = await cli(
        `keys create --username alice --name primary --allow-ip 10.0.0.0/8 --allow-ip ::1 --rate-limit 5/10 --expires-at ${FUTURE} --json`,
      );
    });

    it('create prints the key once with its id, prefix, allow list, expiry and rate limit; only its hash is stored', async () => {
      expect(created.code).toBe(0);
      const k = created.json;
      expect(k).toMatchObject({
        id: expect.stringMatching(/^\d+$/),
        key: expect.stringMatching(/^bmk_/),
        name: 'primary',
        username: 'alice',
        allowed_ips: ['10.0.0.0/8', '::1'],
        expires_at: FUTURE,
        rate_limit: '5/10',
      });
      expect(k.key_prefix).toBe(k.key.slice(0, 12));
      expect(await apiKeyHashHex(stored, k.id)).toBe(sha256Hex(k.key).toUpperCase());
    });

    it('refuses an invalid IP or CIDR, a non-ISO date and a malformed rate limit with exit 2, creating nothing', async () => {
      const base = 'keys create --username alice --name bad --json';
      const runs = await Promise.all([
        cli(`${base} --allow-ip 10.0.0.0/33`),
        cli(`${base} --expires-at`, 'next tuesday'),
        cli(`${base} --rate-limit 5`),
      ]);
      expect(runs.map((r) => r.code)).toEqual([2, 2, 2]);
      expect(await apiKeysNamed(stored, 'bad')).toHaveLength(0);
    });

    it('refuses a past --expires-at with exit 1 (a well-formed request that cannot be honoured)', async () => {
      const r = await cli('keys create --username alice --name old --expires-at 2020-01-01T00:00:00Z --json');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/past/);
    });

    it('answers exit 1 for an unknown key id', async () => {
      const runs = await Promise.all([cli('keys show 999999'), cli('keys logs abc')]);
      expect(runs.map((r) => r.code)).toEqual([1, 1]);
      expect(runs[0].stderr).toMatch(/no key with id 999999/);
    });

    it('list and show never print the key or its hash', async () => {
      const { id, key } = created.json;
      const [list, show] = await Promise.all([
        cli('keys list --username alice --json'),
        cli(`keys show ${id} --json`),
      ]);
      expect(list.json.keys).toEqual([expect.objectContaining({ id, name: 'primary', status: 'active' })]);
      expect(show.json).toMatchObject({ id, key_prefix: key.slice(0, 12), rate_limit: '5/10' });
      expect(show.json).not.toHaveProperty('key');
      for (const out of [list.stdout, show.stdout]) {
        expect(out).not.toContain(key);
        expect(out.toLowerCase()).not.toContain(sha256Hex(key));
        expect(out).not.toMatch(/key_hash/);
      }
    });

    it('update changes the name, allow list, expiry and rate limit, and can clear them', async () => {
      const { id } = created.json;
      const changed = await cli(
        `keys update ${id} --name renamed --allow-ip 192.168.1.7 --rate-limit 50/1 --json`,
      );
      expect(changed.code).toBe(0);
      expect(changed.json).toMatchObject({
        name: 'renamed',
        allowed_ips: ['192.168.1.7'],
        rate_limit: '50/1',
        expires_at: FUTURE,
      });
      const cleared = await cli(
        `keys update ${id} --clear-allow-ip --expires-at never --rate-limit default --json`,
      );
      expect(cleared.json).toMatchObject({
        name: 'renamed',
        allowed_ips: [],
        rate_limit: null,
        expires_at: null,
      });
      const [nothing, past] = await Promise.all([
        cli(`keys update ${id} --json`),
        cli(`keys update ${id} --expires-at 2001-01-01 --json`),
      ]);
      expect([nothing.code, past.code]).toEqual([2, 1]);
    });

    it('rotate prints a new key; the new key resolves and the old one no longer does', async () => {
      const made = await cli('keys create --username alice --name to-rotate --json');
      const rotated = await cli(`keys rotate ${made.json.id} --json`);
      expect(rotated.code).toBe(0);
      expect(rotated.json.id).toBe(made.json.id);
      expect(rotated.json.key).toMatch(/^bmk_/);
      expect(rotated.json.key).not.toBe(made.json.key);
      expect(rotated.json.key_prefix).toBe(rotated.json.key.slice(0, 12));

      // The service the API guard uses, on the same databases.
      // Imported here, not above, for the reason given at the imports.
      const { DatabaseModule } = await import('../../src/database/database.module.js');
      const { MAIN_ENTITIES } = await import('../../src/app/entities.js');
      const moduleRef: TestingModule = await Test.createTestingModule({
        imports: [
          ConfigModule.forRoot(loadConfig(env)),
          DatabaseModule.forRoot(MAIN_ENTITIES),
          ApiKeysModule,
        ],
      }).compile();
      try {
        const keys = moduleRef.get(ApiKeysService);
        expect((await keys.resolve(rotated.json.key))?.key.id).toBe(made.json.id);
        expect(await keys.resolve(made.json.key)).toBeNull();
      } finally {
        await moduleRef.close();
      }
    });

    it('revoke sets revoked_at, and a revoked key cannot be rotated or changed (exit 1)', async () => {
      const made = await cli('keys create --username alice --name to-revoke --json');
      const revoked = await cli(`keys revoke ${made.json.id} --json`);
      expect(revoked.code).toBe(0);
      expect(revoked.json).toMatchObject({
        id: made.json.id,
        status: 'revoked',
        revoked_at: expect.any(String),
      });
      const [rotate, update] = await Promise.all([
        cli(`keys rotate ${made.json.id} --json`),
        cli(`keys update ${made.json.id} --name again --json`),
      ]);
      expect([rotate.code, update.code]).toEqual([1, 1]);
      expect(rotate.stderr).toMatch(/revoked/);
      expect(await apiKeyHashHex(stored, made.json.id)).toBe(sha256Hex(made.json.key).toUpperCase());
    });

    it('logs answers an empty list before request_logs exists, then the rows newest first', async () => {
      const { id } = created.json;
      const empty = await cli(`keys logs ${id} --json`);
      expect(empty.code).toBe(0);
      expect(empty.json).toEqual({ key_id: id, logs: [] });

      await addRequestLogs(stored, [
        {
          api_key_id: id,
          method: 'POST',
          path: '/a',
          status: 200,
          request_id: 'old',
          created_at: '2026-01-01 00:00:00',
        },
        {
          api_key_id: id,
          method: 'POST',
          path: '/b',
          status: 402,
          request_id: 'new',
          created_at: '2026-01-02 00:00:00',
        },
        {
          api_key_id: 0,
          method: 'GET',
          path: '/other',
          status: 200,
          request_id: 'other',
          created_at: '2026-01-03 00:00:00',
        },
      ]);
      const [all, one, zero] = await Promise.all([
        cli(`keys logs ${id} --json`),
        cli(`keys logs ${id} --limit 1 --json`),
        cli(`keys logs ${id} --limit 0 --json`),
      ]);
      expect(all.json.logs.map((l: { request_id: string }) => l.request_id)).toEqual(['new', 'old']);
      expect(one.json.logs).toEqual([
        expect.objectContaining({ request_id: 'new', path: '/b', status: 402 }),
      ]);
      expect(zero.code).toBe(2);
    });
  });

  describe('logs', () => {
    /** A UTC DATETIME(3) literal `days` days ago. */
    const daysAgo = (days: number) =>
      new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 23).replace('T', ' ');

    it('prune --json deletes request logs older than --older-than-days (or the 30-day default) and keeps newer ones', async () => {
      await addRequestLogs(
        stored,
        [45, 35, 10, 0].map((days) => ({
          api_key_id: 900,
          method: 'POST',
          path: '/p',
          status: 200,
          request_id: `prune-${days ? `${days}d` : 'now'}`,
          created_at: daysAgo(days),
        })),
      );
      const olderThan40 = await requestLogsBefore(stored, daysAgo(40));

      const forty = await cli('logs prune --older-than-days 40 --json');
      expect(forty.code).toBe(0);
      expect(forty.stdout.trim().split('\n')).toHaveLength(1);
      expect(forty.json).toEqual({
        deleted: olderThan40,
        older_than_days: 40,
        cutoff: expect.any(String),
        partitions_dropped: [],
      });
      expect(forty.json.deleted).toBeGreaterThanOrEqual(1);
      expect(Math.abs(Date.parse(forty.json.cutoff) - (Date.now() - 40 * 86_400_000))).toBeLessThan(60_000);

      const byDefault = await cli('logs prune --json');
      expect(byDefault.json).toMatchObject({ deleted: 1, older_than_days: 30 });
      expect(await requestLogs(stored, { requestIdPrefix: 'prune-' }, 'request_id')).toEqual([
        { request_id: 'prune-10d' },
        { request_id: 'prune-now' },
      ]);
      expect(await requestLogsBefore(stored, daysAgo(30))).toBe(0);
    });

    it('prune refuses a malformed --older-than-days with exit 2, deleting nothing', async () => {
      const runs = await Promise.all([
        cli('logs prune --older-than-days 0 --json'),
        cli('logs prune --older-than-days ten --json'),
      ]);
      expect(runs.map((r) => r.code)).toEqual([2, 2]);
      expect(runs.map((r) => r.stdout)).toEqual(['', '']);
    });
  });

  it('answers exit 2 for an unknown command, an unknown option or no command at all; --help exits 0', async () => {
    const [unknown, unknownSub, unknownOption, none, help] = await Promise.all([
      binary('frobnicate'),
      binary('keys frobnicate'),
      binary('accounts list --frobnicate'),
      binary(),
      binary('keys create --help'),
    ]);
    expect([unknown.code, unknownSub.code, unknownOption.code, none.code, help.code]).toEqual([
      2, 2, 2, 2, 0,
    ]);
    expect(unknown.stderr).toMatch(/unknown command/);
    expect(help.stdout).toMatch(/--allow-ip/);
  });
});
