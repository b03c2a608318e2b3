import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestLogStore, type RequestLogEntry } from '../../src/modules/request-logs/request-log.store.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** request_logs (log database): the writer's batches, the pruning, and a key's logs. */

let ctx: ServiceContext;
let store: RequestLogStore;

const entry = (over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  apiKeyId: '1',
  accountId: '1',
  method: 'POST',
  path: '/api/v1/json/sms',
  status: 200,
  ip: '127.0.0.1',
  userAgent: 'curl/8',
  durationMs: 3.6,
  apiReference: null,
  requestId: null,
  createdAt: new Date('2030-01-01T00:00:00.000Z'),
  ...over,
});
const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute));
const logs = (where = '1 = 1', params: unknown[] = []) =>
  ctx.ds.query(
    `SELECT * FROM \`${ctx.name}_log\`.request_logs WHERE ${where} ORDER BY id`,
    params,
  ) as Promise<Array<Record<string, any>>>;

beforeAll(async () => {
  ctx = await startServices([], [RequestLogStore]);
  store = ctx.get(RequestLogStore);
});

afterAll(() => ctx?.close());

describe('RequestLogStore', () => {
  it('writes a batch in one statement, text cut to its columns, a duration rounded and never negative', async () => {
    await store.insert([
      entry({ apiKeyId: '10', path: `/p/${'x'.repeat(400)}`, userAgent: 'u'.repeat(400), durationMs: -2 }),
      entry({ apiKeyId: '10', status: 429, repeatCount: 17, apiReference: '1796000000000000000' }),
    ]);
    const rows = await logs('api_key_id = ?', ['10']);
    expect(
      rows.map((r) => [r.path.length, r.user_agent.length, r.duration_ms, r.repeat_count, r.status]),
    ).toEqual([
      [255, 255, 0, 1, 200],
      [16, 6, 4, 17, 429],
    ]);
  });

  it("reads a key's logs newest first up to the limit, and no other key's", async () => {
    await store.insert([1, 3, 2].map((m) => entry({ apiKeyId: '20', createdAt: at(m), requestId: `r${m}` })));
    await store.insert([entry({ apiKeyId: '21', createdAt: at(9) })]);
    const rows = await store.forKey('20', 2);
    expect(rows.map((r) => r.request_id)).toEqual(['r3', 'r2']);
    expect(Object.keys(rows[0])).toContain('repeat_count');
  });

  it('prunes the oldest rows before the cutoff, at most the limit per call', async () => {
    await store.insert([10, 11, 12, 40].map((m) => entry({ apiKeyId: '30', createdAt: at(m + 100) })));
    const before = (await logs()).length;
    expect(await store.deleteOlderThan(at(135), 2)).toBeGreaterThan(0);
    const left = (await logs('api_key_id = ?', ['30'])).map((r) => (r.created_at as Date).toISOString());
    // The 2 oldest rows of the whole table went first (those of the earlier tests).
    expect((await logs()).length).toBe(before - 2);
    expect(left).toHaveLength(4);
    while ((await store.deleteOlderThan(at(135), 2)) > 0);
    expect((await logs('api_key_id = ?', ['30'])).map((r) => (r.created_at as Date).toISOString())).toEqual([
      at(140).toISOString(),
    ]);
  });

  it('answers an empty list while the log table is missing', async () => {
    const table = `\`${ctx.name}_log\`.request_logs`;
    await ctx.ds.query(`RENAME TABLE ${table} TO \`${ctx.name}_log\`.request_logs_away`);
    try {
      expect(await store.forKey('20', 10)).toEqual([]);
    } finally {
      await ctx.ds.query(`RENAME TABLE \`${ctx.name}_log\`.request_logs_away TO ${table}`);
    }
  });
});
