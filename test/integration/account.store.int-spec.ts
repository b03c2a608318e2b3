import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore } from '../../src/modules/accounts/account.store.js';
import { createSubaccount, createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Every statement on accounts, on real MySQL. */

let ctx: ServiceContext;
let store: AccountStore;
let parent: Tenant;
let other: Tenant;

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES);
  store = ctx.get(AccountStore);
  parent = await createTenant(ctx);
  other = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('AccountStore', () => {
  it('reads an account by username and by id, active and without its password hash unless asked', async () => {
    const byName = await store.findByUsername(parent.username);
    expect(byName).toMatchObject({
      id: parent.account.id,
      status: 'active',
      currency: 'ZMW',
      parentId: null,
    });
    expect(byName?.passwordHash).toBeUndefined();
    expect((await store.findById(parent.account.id))?.username).toBe(parent.username);
    expect((await store.credentials(parent.account.id))?.passwordHash).toMatch(/^\$argon2id/);
    expect(await store.findByUsername('nobody-here')).toBeNull();
  });

  it('lists the accounts in id order', async () => {
    const ids = (await store.list()).map((a) => a.id);
    expect(ids.indexOf(parent.account.id)).toBeLessThan(ids.indexOf(other.account.id));
    expect(ids.map(BigInt)).toEqual([...ids].map(BigInt).sort((a, b) => (a < b ? -1 : 1)));
  });

  it('finds a sub-account only under its own parent', async () => {
    const sub = await createSubaccount(ctx, parent);
    expect((await store.findSubaccount(parent.account.id, sub.username))?.id).toBe(sub.account.id);
    expect(await store.findSubaccount(other.account.id, sub.username)).toBeNull();
    expect(await store.findSubaccount(parent.account.id, other.username)).toBeNull();
  });

  it("refuses a second account with a taken username with MySQL's duplicate error", async () => {
    const err = await store
      .transaction((em) =>
        store.insert(em, {
          clientId: 'c-dup',
          parentId: null,
          username: parent.username,
          name: null,
          passwordHash: 'x',
          status: 'active',
          currency: 'ZMW',
          callbackSecret: 's',
        }),
      )
      .catch((e: unknown) => e);
    expect((err as { errno?: number }).errno).toBe(1062);
  });

  it('holds the row of lockByUsername against other writers until its transaction ends', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const tx = store.transaction(async (em) => {
      await store.lockByUsername(em, other.username);
      locked();
      await held;
    });
    await isLocked;
    const during = await ctx.ds
      .query('SELECT id FROM accounts WHERE id = ? FOR UPDATE NOWAIT', [other.account.id])
      .catch((e: { errno?: number }) => e.errno);
    release();
    await tx;
    expect(during).toBe(1205);
    expect(
      await ctx.ds.query('SELECT id FROM accounts WHERE id = ? FOR UPDATE NOWAIT', [other.account.id]),
    ).toHaveLength(1);
  });

  it('reads the callback secret by id or username, and nothing for an unknown account', async () => {
    const secret = await store.callbackSecretOf(parent.account.id);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect((await store.withCallbackSecret(parent.username))?.callbackSecret).toBe(secret);
    expect(await store.callbackSecretOf('999999999')).toBeUndefined();
  });

  it('changes only the columns given', async () => {
    await store.update(other.account.id, { name: 'Other Ltd' });
    expect(await store.findById(other.account.id)).toMatchObject({ name: 'Other Ltd', status: 'active' });
  });
});
