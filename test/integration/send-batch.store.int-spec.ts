import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Statement } from '../../src/database/statement.js';
import { SendBatchStore } from '../../src/modules/sending/send-batch.store.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** A batch of statements in one transaction, committed only when its check accepts their results. */

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
  it("commits every statement once the check accepts each one's count of changed rows, in order", async () => {
    let seen: Array<number | undefined> = [];
    await store.commitIf([insert('ok'), insert('ok'), update('ok'), update('none')], (results) => {
      seen = results.map((r) => r.affectedRows);
    });
    expect(seen).toEqual([1, 1, 2, 0]);
    expect(await rowsOf('ok')).toBe(2);
  });

  it('sends reads with the COMMIT, in its round trip, and answers their rows in order', async () => {
    const count = (host: string): Statement => ({
      sql: 'SELECT COUNT(*) AS n FROM id_nodes WHERE host = ?',
      params: [host],
    });
    const rows = await store.commitIf([insert('read'), insert('read')], () => undefined, [
      count('read'),
      count('none'),
    ]);
    expect(rows.map((r) => Number((r as Array<{ n: string }>)[0]!.n))).toEqual([2, 0]);
    expect(await store.commitIf([insert('unread')], () => undefined)).toEqual([]);
  });

  it('rolls every statement back when the check throws, and throws its error', async () => {
    const refused = new Error('a balance could not pay');
    await expect(
      store.commitIf([insert('refused'), update('refused')], () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(await rowsOf('refused')).toBe(0);
  });

  it('rolls back the statements before one that fails, and leaves the pool usable', async () => {
    const bad: Statement = { sql: 'INSERT INTO id_nodes (no_such_column) VALUES (1)', params: [] };
    await expect(store.commitIf([insert('broken'), bad], () => undefined)).rejects.toThrow(/no_such_column/);
    expect(await rowsOf('broken')).toBe(0);
    await store.commitIf([insert('after')], () => undefined);
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
