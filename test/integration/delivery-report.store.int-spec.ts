import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeliveryReportStore,
  type ArrivedReport,
  type AppliedReport,
} from '../../src/modules/delivery/receipts/delivery-report.store.js';
import { receiptKey } from '../../src/modules/delivery/receipts/receipt-matcher.js';
import { ageDeliveryReports } from '../support/clock.js';
import { deliveryReports } from '../support/receipt-probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Stored delivery reports (notification database): kept, found again, applied, stranded, expired. */

let ctx: ServiceContext;
let store: DeliveryReportStore;

const arrived = (
  providerMessageId: string,
  connector: string | null = null,
  status: ArrivedReport['report']['status'] = 'DELIVERED',
): ArrivedReport => ({
  transport: 'smpp',
  report: {
    providerMessageId,
    connector,
    status,
    reason: status === 'DELIVERED' ? null : 'UNDELIV',
    occurredAt: new Date(),
  },
});

beforeAll(async () => {
  ctx = await startServices([], [DeliveryReportStore]);
  store = ctx.get(DeliveryReportStore);
});

afterAll(() => ctx?.close());

describe('DeliveryReportStore', () => {
  it('stores a batch, those already matched as applied to their message, and finds the others again by id', async () => {
    const matched: AppliedReport = {
      providerMessageId: 'a1',
      connector: 'x',
      messageId: '1796000000000000001',
    };
    await store.insert(
      [arrived('a1', 'x'), arrived('a2', 'x', 'UNDELIVERED')],
      new Map([[receiptKey(matched), matched]]),
    );
    expect((await deliveryReports(ctx, { providerMessageId: 'a1' }))[0]).toMatchObject({
      message_id: '1796000000000000001',
      applied_at: expect.any(Date),
    });
    expect(await store.pending(['a1', 'a2'], [], [])).toEqual([
      { provider_message_id: 'a2', connector: 'x', status: 'UNDELIVERED', reason: 'UNDELIV' },
    ]);
  });

  it('finds a report by the numeric value of its id, written in hex or in decimal by the SMSC', async () => {
    // The submit id was 'ff' (255): one receipt writes it '00ff', another '255'.
    await store.insert([arrived('00ff'), arrived('255')]);
    const found = async (byHex: string[], byDec: string[]) =>
      (await store.pending(['ff'], byHex, byDec)).map((r) => r.provider_message_id);
    expect(await found(['255'], [])).toEqual(['00ff']);
    expect(await found([], ['255'])).toEqual(['255']);
    expect(await found(['255'], ['255'])).toEqual(['00ff', '255']);
    expect(await found([], [])).toEqual([]);
  });

  it("marks applied only the rows of the receipt's own connector, or of none for a receipt without one", async () => {
    await store.insert([arrived('same', 'c1'), arrived('same', 'c2'), arrived('same', null)]);
    await store.markApplied([
      { providerMessageId: 'same', connector: 'c1', messageId: '11' },
      { providerMessageId: 'same', connector: null, messageId: '33' },
    ]);
    const rows = await deliveryReports(ctx, { providerMessageId: 'same' });
    expect(rows.map((r) => [r.connector, r.message_id, r.applied_at !== null])).toEqual([
      [null, '33', true],
      ['c1', '11', true],
      ['c2', null, false],
    ]);
    expect((await store.pending(['same'], [], [])).map((r) => r.connector)).toEqual(['c2']);
  });

  it('answers the stranded reports newest first, then expires the old ones, which are then pending no more', async () => {
    await store.insert([arrived('s1'), arrived('s2'), arrived('s3')]);
    await ageDeliveryReports(ctx, ['s1'], 3_600_000);
    await ageDeliveryReports(ctx, ['s2'], 120_000);
    const stranded = await store.stranded(60_000, 10);
    expect(stranded.filter((id) => id.startsWith('s'))).toEqual(['s2', 's1']);
    expect(stranded).not.toContain('s3');
    expect(await store.stranded(60_000, 1)).toHaveLength(1);
    expect(await store.expireUnapplied(600_000)).toBeGreaterThanOrEqual(1);
    expect((await store.pending(['s1', 's2', 's3'], [], [])).map((r) => r.provider_message_id)).toEqual([
      's2',
      's3',
    ]);
    expect(await store.stranded(60_000, 10)).not.toContain('s1');
  });
});
