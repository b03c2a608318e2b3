import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchiveFile } from '../../src/modules/retention/message-archive.js';
import { RetentionService, type PruneResult } from '../../src/modules/retention/retention.service.js';
import { FINAL_STATES } from '../../src/modules/retention/retention.store.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { ledgerEntries } from '../support/account-probes.js';
import { accountMessages } from '../support/message-probes.js';
import { seedAccountMessages } from '../support/message-seed.js';
import { messageCount } from '../support/probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const OLD = 30;

/** Every round one instance's scheduler ran: the prune's result, or undefined when the lock was held. */
function recordRounds(t: TestApp): Array<PruneResult | undefined> {
  const rounds: Array<PruneResult | undefined> = [];
  const service = t.app.get(RetentionService);
  const prune = service.prune.bind(service);
  service.prune = async (o) => {
    const r = await prune(o);
    rounds.push(r);
    return r;
  };
  return rounds;
}

describe('scheduled prune (RETENTION_SCHEDULE) with two processes on one database', () => {
  const apps: TestApp[] = [];
  const rounds: Array<Array<PruneResult | undefined>> = [];
  let tenant: Tenant;
  let archiveDir: string;

  beforeAll(async () => {
    archiveDir = mkdtempSync(join(tmpdir(), 'archive-schedule-'));
    // A period of a second and a prune of several paced batches: the two schedulers' rounds overlap.
    const settings = {
      RUN_WORKERS: 'true',
      RETENTION_SCHEDULE: '1s',
      RETENTION_BATCH: '2',
      RETENTION_PAUSE_MS: '250',
      ARCHIVE_DIR: archiveDir,
    };
    apps.push(await startTestApp(settings));
    rounds.push(recordRounds(apps[0]));
    tenant = await createTenant(apps[0], { balances: { sms: '100' }, prices: { sms: '0.5' } });
    apps.push(await startTestApp(settings, apps[0].name));
    rounds.push(recordRounds(apps[1]));
  });
  afterAll(async () => {
    for (const t of apps.reverse()) await t.close();
    if (archiveDir) rmSync(archiveDir, { recursive: true, force: true });
  });

  it('prunes old final messages once, in one process under the lock, and leaves non-final messages and the ledger', async () => {
    const t = apps[0];
    const ledger = async () =>
      (await ledgerEntries(t, { accountId: tenant.account.id })).map(({ id, kind, amount }) => ({
        id,
        kind,
        amount,
      }));
    const messages = () => accountMessages(t, tenant.account.id, 'id', 'status');
    const ledgerBefore = await ledger();
    expect(ledgerBefore.length).toBeGreaterThan(0);
    // Messages created 200 days ago (ids carry their creation time), past the 90 days kept.
    const start = new Date(Date.now() - 200 * 86_400_000);
    await seedAccountMessages(t, {
      accountId: String(tenant.account.id),
      count: OLD,
      firstId: BigInt(start.getTime()) * 1_000_000n,
      start,
      perRequest: 10,
    });
    const nonFinal = (await messages()).filter(
      (m) => !(FINAL_STATES as readonly string[]).includes(m.status),
    );
    const oldFinal = OLD - nonFinal.length;
    expect(nonFinal.length).toBeGreaterThan(0);
    expect(oldFinal).toBeGreaterThan(0);

    await waitFor(
      async () => (await messageCount(t, tenant.account.id)) === nonFinal.length,
      30_000,
      'the old final messages pruned',
    );
    // A round of each process after the removal: both schedulers are running.
    const seen = rounds.map((r) => r.length);
    await waitFor(
      async () => rounds.every((r, i) => r.length > seen[i]),
      15_000,
      'a later round in each process',
    );

    // One process removed them all, in one round; every round of the other removed nothing or
    // found the lock held. Rounds are never in parallel: at least one found the lock taken.
    const removing = rounds.map((r) => r.filter((x) => (x?.removed.messages ?? 0) > 0));
    expect(removing.map((r) => r.length).sort()).toEqual([0, 1]);
    expect(removing.flat()[0]!.removed.messages).toBe(oldFinal);
    expect(rounds.flat().filter((r) => r === undefined).length).toBeGreaterThan(0);

    // Each removed message is in the archive exactly once; the non-final ones and the ledger stay.
    const day = start.toISOString().slice(0, 10);
    const archived = (await readArchiveFile(join(archiveDir, day, 'messages.ndjson.gz'))).map((m) =>
      String(m.message_id),
    );
    expect(archived).toHaveLength(oldFinal);
    expect(new Set(archived).size).toBe(oldFinal);
    expect(await messages()).toEqual(nonFinal);
    expect(await ledger()).toEqual(ledgerBefore);
  });
});
