import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Statement } from '../../src/database/statement.js';
import { SendBatchStore, type BatchStatement } from '../../src/modules/sending/send-batch.store.js';
import { recordRunnerQueries } from '../support/runner-queries.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** A batch of statements in one transaction and one round trip, committed only when each statement that must change one row did. */

let ctx: ServiceContext;
let store: SendBatchStore;
let n = 0;

/** A row of id_nodes, a table with nothing else to do here: its host tells the test's rows apart. */
const insert = (host: string): Statement => ({
  sql: 'INSERT INTO id_nodes (host, pid) VALUES (?, ?)',
  params: [host, ++n],
});
const update = (host: string): Statement => ({
  sql: 'UPDATE id_nodes SET pid = pid + 1 WHERE host = ?',
  params: [host],
});
const oneRow = (s: Statement): BatchStatement => ({ ...s, oneRow: true });
const rowsOf = async (host: string) =>
  Number(
    (
      (await ctx.ds.query('SELECT COUNT(*) AS n FROM id_nodes WHERE host = ?', [host])) as Array<{
        n: string;
      }>
    )[0].n,
  );

beforeAll(async () => {
  ctx = await startServices([], [SendBatchStore]);
  store = ctx.get(SendBatchStore);
});

afterAll(() => ctx?.close());

describe('SendBatchStore', () => {
  it('commits every statement in one query when each one marked oneRow changed one row', async () => {
    const { runners, restore } = recordRunnerQueries(ctx.ds);
    try {
      await store.commitAtOnce([
        insert('ok'),
        insert('ok'),
        insert('one'),
        oneRow(update('one')),
        update('none'),
      ]);
    } finally {
      restore();
    }
    expect(runners).toEqual([[expect.any(String)]]);
    expect(runners[0]![0]).toMatch(/^START TRANSACTION;[^]*;\nCOMMIT$/);
    expect(await rowsOf('ok')).toBe(2);
  });

  it('sends reads after the COMMIT in the same query, and answers their rows in order', async () => {
    const count = (host: string): Statement => ({
      sql: 'SELECT COUNT(*) AS n FROM id_nodes WHERE host = ?',
      params: [host],
    });
    const rows = await store.commitAtOnce([insert('read'), insert('read')], [count('read'), count('none')]);
    expect(rows.map((r) => Number((r as Array<{ n: string }>)[0]!.n))).toEqual([2, 0]);
    expect(await store.commitAtOnce([insert('unread')])).toEqual([]);
  });

  it('commits nothing when a statement marked oneRow changed no row, and throws', async () => {
    await expect(
      store.commitAtOnce([insert('refused'), oneRow(update('no-such-host')), insert('refused')]),
    ).rejects.toThrow(/did not change its one row/);
    expect(await rowsOf('refused')).toBe(0);
  });

  it('commits nothing when a statement marked oneRow changed two rows', async () => {
    await store.commitAtOnce([insert('two'), insert('two')]);
    await expect(store.commitAtOnce([insert('two-more'), oneRow(update('two'))])).rejects.toThrow(
      /did not change its one row/,
    );
    expect(await rowsOf('two-more')).toBe(0);
  });

  it('rolls back the statements before one that fails, and leaves the pool usable', async () => {
    const bad: Statement = { sql: 'INSERT INTO id_nodes (no_such_column) VALUES (1)', params: [] };
    await expect(store.commitAtOnce([insert('broken'), bad])).rejects.toThrow(/no_such_column/);
    expect(await rowsOf('broken')).toBe(0);
    await store.commitAtOnce([insert('after')]);
    expect(await rowsOf('after')).toBe(1);
  });

  it("runs statements one by one in the caller's transaction, rolled back with it", async () => {
    await ctx.ds.transaction((em) => store.runEach(em, [insert('each'), insert('each'), update('each')]));
    expect(await rowsOf('each')).toBe(2);
    await expect(
      ctx.ds.transaction(async (em) => {
        await store.runEach(em, [insert('each-undone')]);
        throw new Error('the send failed');
      }),
    ).rejects.toThrow('the send failed');
    expect(await rowsOf('each-undone')).toBe(0);
  });
});
