import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdNodeStore } from '../../src/modules/sending/id-node.store.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The id_nodes table, from which each process takes its node number. */

let ctx: ServiceContext;
let store: IdNodeStore;

beforeAll(async () => {
  ctx = await startServices([], [IdNodeStore]);
  store = ctx.get(IdNodeStore);
});

afterAll(() => ctx?.close());

describe('IdNodeStore', () => {
  it('never hands the same number to two process starts, however many register at once', async () => {
    const numbers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.register('host-a', 1000 + i)),
    );
    expect(new Set(numbers).size).toBe(30);
    const later = await store.register('host-b', 1);
    expect(later).toBeGreaterThan(Math.max(...numbers));
  });

  it('records who registered each number', async () => {
    const n = await store.register('host-c', 4242);
    const [row] = (await ctx.ds.query('SELECT host, pid FROM id_nodes WHERE id = ?', [n])) as Array<{
      host: string;
      pid: number;
    }>;
    expect(row).toEqual({ host: 'host-c', pid: 4242 });
  });
});
