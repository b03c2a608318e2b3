import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CONFIG, type AppConfig } from '../../src/config/config.js';
import { readArchiveFile, readIndex } from '../../src/modules/retention/message-archive.js';
import { RetentionService } from '../../src/modules/retention/retention.service.js';
import { PartitionPrune } from '../../src/modules/retention/partition-prune.service.js';
import { RetentionStore } from '../../src/modules/retention/retention.store.js';
import { ShortLinkStore } from '../../src/modules/links/short-link.store.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { ledgerTotals, requestsChargedTwice, suppressionCount } from '../support/account-probes.js';
import { runCli } from '../support/cli-in-process.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import {
  accountMessages,
  requestMessages,
  requestsById,
  requestsOf,
  rowsNamingMessages,
} from '../support/message-probes.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { seedAccountMessages } from '../support/message-seed.js';
import { balanceOf, sendRequestFields } from '../support/probes.js';
import { othersWrite } from '../support/others-writes.js';

const SMS = '/api/v1/json/bulk/sms';
const FINAL = ['DELIVERED', 'UNDELIVERED', 'EXPIRED', 'FAILED', 'REJECTED', 'CANCELLED'];

type Counts = Record<string, number>;

describe('message retention and archives (db prune, db archive)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let hooks: HttpPeer;
  let archiveDir: string;
  let cliEnv: Record<string, string>;

  const ledger = () => ledgerTotals(t, { accountId: tenant.account.id });
  /** How many of a request's messages are final. */
  const finalOf = async (ref: string) =>
    (await requestMessages(t, ref, 'status')).filter((m) => FINAL.includes(m.status)).length;
  const balance = () => balanceOf(t, tenant.account.id);

  async function send(body: Record<string, unknown>) {
    const res = await t.http().post(SMS).set('X-API-Key', tenant.key).send(body);
    expect(res.status).toBe(200);
    return res.body as { api_reference: string; data: Array<{ message_id: string }> };
  }

  async function prune(...args: string[]): Promise<{ removed: Counts; archived_rows: number }> {
    const r = await runCli(cliEnv, ['db', ...args, '--json']);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  }

  /** Every row of each family across the archive's days, read from its files. */
  let archive = new Map<string, Array<Record<string, unknown>>>();
  const archived = (family: string) => archive.get(family) ?? [];
  async function loadArchive(): Promise<void> {
    archive = new Map();
    for (const day of readdirSync(archiveDir))
      for (const f of readdirSync(join(archiveDir, day)))
        if (f.endsWith('.ndjson.gz')) {
          const family = f.replace('.ndjson.gz', '');
          archive.set(family, [...archived(family), ...(await readArchiveFile(join(archiveDir, day, f)))]);
        }
  }

  beforeAll(async () => {
    hooks = await startHttpPeer();
    hooks.setHandler(() => ({ status: 204 }));
    archiveDir = mkdtempSync(join(tmpdir(), 'archive-'));
    const settings = {
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      ARCHIVE_DIR: archiveDir,
      // Small batches without pauses: many batches, each its own transaction, in little time (the
      // pace itself is the retention-pace spec's).
      RETENTION_BATCH: '7',
      RETENTION_PAUSE_MS: '0',
      RETENTION_PAUSE_FACTOR: '0',
      RETENTION_QUIET_PAUSE_FACTOR: '0',
    };
    t = await startTestApp(settings);
    cliEnv = testEnv(t.name, settings);
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.5' } });
  });
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
    if (archiveDir) rmSync(archiveDir, { recursive: true, force: true });
  });

  it('removes final messages with their events, parts, receipts and callbacks, keeps waiting messages and every ledger row, and archives what it removed as the export writes it', async () => {
    const done = await send({
      from: 'ACME',
      to: ['260971000001', '260971000002', '260971000003', '260971000004', '260971110000'],
      message: 'Hello',
      user_reference_id: 'r-1',
      callback_url: `${hooks.url}/dlr`,
    });
    const waiting = await send({
      from: 'ACME',
      to: ['260971000005', '260971000006'],
      message: 'Later',
      send_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const ids = async (ref: string) => (await requestMessages(t, ref, 'id')).map((r) => String(r.id));
    const doneIds = await ids(done.api_reference);
    await waitFor(async () => (await finalOf(done.api_reference)) === 5, 15_000, 'five final messages');
    // Two callbacks per message (SENT, then DELIVERED or UNDELIVERED).
    const attempts = async () => (await rowsNamingMessages(t, doneIds)).callback_attempts;
    await waitFor(async () => (await attempts()) >= 10, 15_000, 'ten callback attempts');

    const exported = (
      await t.http().get('/api/v1/json/messages/export?format=ndjson').set('X-API-Key', tenant.key)
    ).text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((m) => m.api_reference === done.api_reference);
    expect(exported).toHaveLength(5);
    const named = await rowsNamingMessages(t, doneIds);
    const expected = {
      messages: 5,
      send_requests: 1,
      message_events: named.message_events,
      message_parts: named.message_parts,
      delivery_reports: named.delivery_reports,
      callback_attempts: await attempts(),
      short_links: 0,
    };
    expect(expected.message_events).toBeGreaterThanOrEqual(10);
    expect(expected.delivery_reports).toBe(5);
    const ledgerBefore = await ledger();
    const balanceBefore = await balance();

    const r = await prune('archive', '--before', new Date(Date.now() + 60_000).toISOString());
    expect(r.removed).toEqual(expected);

    // The waiting messages, their request and every ledger row are still there.
    expect(await ids(waiting.api_reference)).toHaveLength(2);
    expect(await ids(done.api_reference)).toHaveLength(0);
    expect(await ledger()).toEqual(ledgerBefore);
    expect(await balance()).toBe(balanceBefore);
    const summary = await t
      .http()
      .get(`/api/v1/json/bulk/${waiting.api_reference}`)
      .set('X-API-Key', tenant.key);
    expect(summary.status).toBe(200);
    expect(summary.body.counts.SCHEDULED).toBe(2);
    const gone = await t.http().get(`/api/v1/json/bulk/${done.api_reference}`).set('X-API-Key', tenant.key);
    expect(gone.status).toBe(404);

    // The archive reads back as the export wrote the same messages, with the account added.
    await loadArchive();
    const messages = archived('messages');
    expect(
      messages.map(({ account_id, ...m }) => (expect(account_id).toBe(String(tenant.account.id)), m)),
    ).toEqual(exported);
    expect(archived('message_events')).toHaveLength(expected.message_events);
    expect(archived('message_parts')).toHaveLength(expected.message_parts);
    expect(archived('delivery_reports')).toHaveLength(5);
    expect(archived('callback_attempts')).toHaveLength(expected.callback_attempts);
    expect(r.archived_rows).toBe(Object.values(expected).reduce((a, b) => a + b) - 1);
    // Every member listed in the day's index is where the index says, with its checksum and row count.
    for (const day of readdirSync(archiveDir)) {
      for (const e of await readIndex(archiveDir, day)) {
        const bytes = readFileSync(join(archiveDir, e.file)).subarray(e.offset, e.offset + e.bytes);
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(e.sha256);
      }
    }
    // Nothing is left to remove: a second run removes nothing.
    const again = await prune('prune', '--before', new Date(Date.now() + 60_000).toISOString());
    expect(again.removed.messages).toBe(0);
  });

  it('without ARCHIVE_DIR, removes final messages and their rows, keeps waiting ones, and writes no archive', async () => {
    const done = await send({ from: 'ACME', to: ['260971000011', '260971000012'], message: 'Bye' });
    const waiting = await send({
      from: 'ACME',
      to: ['260971000013'],
      message: 'Later',
      send_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await waitFor(async () => (await finalOf(done.api_reference)) === 2, 15_000, 'two final messages');
    const doneIds = (await requestMessages(t, done.api_reference, 'id')).map((r) => String(r.id));
    await waitFor(
      async () => (await rowsNamingMessages(t, doneIds)).delivery_reports === 2,
      15_000,
      'two receipts',
    );
    const archiveDays = readdirSync(archiveDir).length;
    const withoutArchive = Object.fromEntries(Object.entries(cliEnv).filter(([k]) => k !== 'ARCHIVE_DIR'));
    const r = await runCli(withoutArchive, [
      'db',
      'prune',
      '--before',
      new Date(Date.now() + 60_000).toISOString(),
      '--json',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      removed: Counts;
      archive_dir: string | null;
      archived_rows: number;
    };
    expect(out.archive_dir).toBeNull();
    expect(out.archived_rows).toBe(0);
    expect(out.removed).toMatchObject({ messages: 2, send_requests: 1, delivery_reports: 2 });
    expect(await rowsNamingMessages(t, doneIds)).toMatchObject({
      message_events: 0,
      message_parts: 0,
      delivery_reports: 0,
    });
    expect(await requestMessages(t, done.api_reference, 'id')).toHaveLength(0);
    expect(await requestMessages(t, waiting.api_reference, 'id')).toHaveLength(1);
    expect(readdirSync(archiveDir)).toHaveLength(archiveDays);
  });

  it('loses no message and charges none twice when it prunes while sends are accepted and dispatched', async () => {
    const accepted: string[] = [];
    let sending = true;
    const sends = (async () => {
      for (let i = 0; i < 24; i++) {
        const to = Array.from({ length: 10 }, (_, k) => `2609720${String(i * 10 + k).padStart(5, '0')}`);
        const res = await send({ from: 'ACME', to, message: `batch ${i}`, callback_url: `${hooks.url}/dlr` });
        accepted.push(...res.data.map((d) => d.message_id));
      }
      sending = false;
    })();
    let runs = 0;
    while (sending) {
      await prune('prune', '--before', new Date(Date.now() + 60_000).toISOString());
      runs++;
    }
    await sends;
    expect(runs).toBeGreaterThan(0);
    await waitFor(
      async () =>
        (await accountMessages(t, tenant.account.id, 'status')).every(
          (m) => FINAL.includes(m.status) || m.status === 'SCHEDULED',
        ),
      30_000,
      'every message final',
    );
    await prune('prune', '--before', new Date(Date.now() + 60_000).toISOString());

    await loadArchive();
    const archivedIds = archived('messages').map((m) => String(m.message_id));
    const left = (await accountMessages(t, tenant.account.id, 'uuid', 'status'))
      .filter((m) => m.status !== 'SCHEDULED')
      .map((m) => m.uuid);
    expect(left).toEqual([]);
    // Each accepted message is in the archive exactly once.
    const batch = new Set(accepted);
    const inArchive = archivedIds.filter((id) => batch.has(id));
    expect(inArchive.sort()).toEqual([...accepted].sort());
    // One charge per request, no refund twice, and the balance is still the sum of the ledger.
    expect(await requestsChargedTwice(t, tenant.account.id)).toEqual([]);
    const { total } = await ledger();
    expect(Number(total)).toBeCloseTo(Number(await balance()), 6);
  });

  it('paces itself by what others write: one or two batches in three seconds beside others writing, every batch (db prune) when those writes count as quiet; a stop ends a pause', async () => {
    const owner = await createTenant(t, { balances: { sms: '10' }, prices: { sms: '0.5' } });
    const start = new Date(Date.now() - 400 * 86_400_000);
    await seedAccountMessages(t, {
      accountId: owner.account.id,
      count: 100,
      firstId: BigInt(start.getTime()) * 1_000_000n + 7n,
      start,
      perRequest: 10,
    });
    // Final seeded messages (their status cycles through final and waiting ones).
    const finalLeft = async () =>
      (await accountMessages(t, owner.account.id, 'status')).filter((m) => FINAL.includes(m.status)).length;
    const final = await finalLeft();
    expect(final).toBeGreaterThan(30);
    // Others write: up to 2,500 rows a second into a table of their own on the same server.
    const others = await othersWrite((sql) => t.ds.query(sql));
    const before = new Date(Date.now() - 90 * 86_400_000);
    const pace = { batch: 10, pauseFactor: 1000, quietPauseFactor: 0 };
    // The prune as a worker's schedule runs it: with a signal its shutdown aborts.
    const config = t.app.get<AppConfig>(APP_CONFIG);
    const prune = (pauseMs: number, quietWrites: number, stopAfterMs: number) => {
      const retention = { ...config.retention, ...pace, archiveDir: undefined, pauseMs, quietWrites };
      const service = new RetentionService(
        t.app.get(RetentionStore, { strict: false }),
        t.app.get(PartitionPrune, { strict: false }),
        { ...config, retention },
        t.app.get(ShortLinkStore, { strict: false }),
      );
      return service.prune({ before, signal: AbortSignal.timeout(stopAfterMs) });
    };
    try {
      // Busy: after each batch the prune pauses a thousand times as long (2 s or more), and is
      // stopped at 3 s: one batch, two at most.
      const busy = (await prune(0, 50, 3000))!.removed.messages;
      expect(busy).toBeGreaterThanOrEqual(10);
      expect(busy).toBeLessThanOrEqual(20);
      expect(await finalLeft()).toBe(final - busy);
      // A stop 1 s into a pause of a minute (RETENTION_PAUSE_MS) ends it: one batch, then back.
      const stopAt = performance.now();
      const stopped = (await prune(60_000, 1_000_000, 1000))!.removed.messages;
      expect(stopped).toBe(10);
      expect(performance.now() - stopAt).toBeLessThan(15_000);
      // db prune under a threshold above these writes: quiet, no pause, every final message goes.
      const quiet = await runCli(
        {
          ...cliEnv,
          RETENTION_BATCH: '10',
          RETENTION_PAUSE_MS: '0',
          RETENTION_PAUSE_FACTOR: '1000',
          RETENTION_QUIET_PAUSE_FACTOR: '0',
          RETENTION_QUIET_WRITES: '1000000',
        },
        ['db', 'prune', '--before', before.toISOString(), '--json'],
      );
      expect(quiet.code, quiet.stderr).toBe(0);
      expect(JSON.parse(quiet.stdout).removed.messages).toBe(final - busy - stopped);
      expect(await finalLeft()).toBe(0);
    } finally {
      await others.stop();
    }
  });

  /** Runs `work` while another connection holds the retention lock; `release` lets it go early. */
  async function withLockHeld(work: (release: () => Promise<void>) => Promise<void>): Promise<void> {
    const holder = await createConnection({ host: '127.0.0.1', user: 'root', database: t.name });
    try {
      await holder.query('SELECT GET_LOCK(?, 0)', [`retention:${t.name}`]);
      await work(async () => {
        await holder.query('SELECT RELEASE_LOCK(?)', [`retention:${t.name}`]);
      });
    } finally {
      await holder.end();
    }
  }

  it('lets one prune run at a time: a second one waits --wait seconds for the lock, then removes nothing and says so', () =>
    withLockHeld(async (release) => {
      const r = await runCli(cliEnv, ['db', 'prune', '--wait', '1', '--json']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/another process is pruning \(it held the retention lock for 1 s\)/i);
      expect(r.stdout).toBe('');
      // Released within the wait: the prune runs.
      const waiting = runCli(cliEnv, ['db', 'prune', '--wait', '30', '--json']);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await release();
      const after = await waiting;
      expect(after.code, after.stderr).toBe(0);
      expect(JSON.parse(after.stdout)).toHaveProperty('removed');
    }));

  it('runs `db prune` at the CPU niceness of RETENTION_NICE, every thread of its process', () =>
    // Held, so the prune waits for it long enough to be looked at.
    withLockHeld(async () => {
      const child = spawn(process.execPath, ['dist/cli.js', 'db', 'prune', '--wait', '3', '--json'], {
        env: { PATH: process.env.PATH ?? '', ...cliEnv, RETENTION_NICE: '13' },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const niceness = (tid: string) =>
        Number(readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
      let seen: number[] = [];
      await waitFor(
        async () => {
          try {
            seen = readdirSync(`/proc/${child.pid}/task`).map(niceness);
          } catch {
            seen = [];
          }
          return seen.length > 0 && seen.every((n) => n === 13);
        },
        10_000,
        'the prune lowering its priority',
      );
      expect(seen.length).toBeGreaterThan(5);
      expect(await exited).toBe(1); // the lock was never released
    }));

  it('erases a recipient from messages, requests sent to it alone and the archive, keeping amounts, the ledger and its suppression', async () => {
    const R = '260971555001';
    const sendTo = async (to: string[], message: string) => {
      const res = await send({ from: 'ACME', to, message });
      await waitFor(async () => (await finalOf(res.api_reference)) === to.length, 15_000, 'final messages');
      return res.api_reference;
    };
    await sendTo([R], 'Private note one');
    await prune('archive', '--before', new Date(Date.now() + 60_000).toISOString());
    const alone = await sendTo([R], 'Private note two');
    const shared = await sendTo([R, '260971555002'], 'Shared news');
    await send({
      from: 'ACME',
      to: [R],
      message: 'Later note',
      send_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const suppressed = await runCli(cliEnv, [
      'suppressions',
      'add',
      '--username',
      tenant.username,
      '--channel',
      'sms',
      '--recipient',
      R,
    ]);
    expect(suppressed.code).toBe(0);
    const costs = () => accountMessages(t, tenant.account.id, 'id', 'units', 'cost', 'status');
    const costsBefore = await costs();
    const ledgerBefore = await ledger();

    const r = await runCli(cliEnv, [
      'accounts',
      'erase-recipient',
      '--username',
      tenant.username,
      '--recipient',
      `+${R}`,
      '--json',
    ]);
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer).toEqual({
      recipient: R,
      rows: {
        messages: 2,
        send_requests: 1,
        inbound_messages: 0,
        verifications: 0,
        callback_outbox: 0,
        webhook_deliveries: 0,
        idempotency_keys: 0,
        request_logs: 0,
        short_links: 0,
        archived_messages: 1,
      },
      archive_files: 1,
      total: 4,
      pending: 1,
    });

    // Only the scheduled message, not yet final, still names the number; no text of a request to it alone is left.
    const left = (await accountMessages(t, tenant.account.id, 'recipient', 'status')).filter(
      (m) => m.recipient === R,
    );
    expect(left.map((m) => m.status)).toEqual(['SCHEDULED']);
    const bodies = (await requestsOf(t, tenant.account.id, 'body')).map((r) => String(r.body));
    expect(bodies.filter((b) => b.startsWith('Private note'))).toHaveLength(0);
    const { body } = await sendRequestFields(t, shared, 'body');
    expect(body).toBe('Shared news');
    expect(await requestsById(t, [alone], 'id')).toHaveLength(1);
    // Amounts, states and the ledger are as they were; the suppression stays.
    expect(await costs()).toEqual(costsBefore);
    expect(await ledger()).toEqual(ledgerBefore);
    expect(await suppressionCount(t, tenant.account.id, R)).toBe(1);
    // No archive line names the number any more.
    await loadArchive();
    for (const rows of archive.values()) expect(JSON.stringify(rows)).not.toContain(R);
    expect(archived('messages').filter((m) => m.recipient === 'erased')).toHaveLength(1);

    // The account itself, over HTTP: the same rule, and a clear 400 for what is not a recipient.
    await sendTo(['260971555003'], 'Hello three');
    const own = await t
      .http()
      .post('/api/v1/json/recipients/erase')
      .set('X-API-Key', tenant.key)
      .send({ recipient: '260 971 555 003' });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      success: true,
      recipient: '260971555003',
      rows: { messages: 1 },
      pending: 0,
    });
    const bad = await t
      .http()
      .post('/api/v1/json/recipients/erase')
      .set('X-API-Key', tenant.key)
      .send({ recipient: 'nobody' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });
});
