import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/modules/api-keys/api-key.store.js';
import { hashApiKey } from '../../src/modules/api-keys/api-key.util.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Every statement on api_keys, on real MySQL. */

let ctx: ServiceContext;
let store: ApiKeyStore;
let tenant: Tenant;
let other: Tenant;

const updatedAt = async (id: string) =>
  (
    (await ctx.ds.query('SELECT updated_at FROM api_keys WHERE id = ?', [id])) as Array<{ updated_at: Date }>
  )[0].updated_at;

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES);
  store = ctx.get(ApiKeyStore);
  tenant = await createTenant(ctx, { test: true });
  other = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('ApiKeyStore', () => {
  it('reads an inserted key back with the defaults the table gives it', async () => {
    const key = await store.findById(tenant.apiKey.id);
    expect(key).toMatchObject({
      accountId: tenant.account.id,
      mode: 'live',
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(key!.createdAt).toBeInstanceOf(Date);
    expect((await store.findById(tenant.test!.apiKey.id))?.mode).toBe('test');
  });

  it("lists every key oldest first with its account's username, or one account's alone", async () => {
    const all = await store.list();
    const ids = all.map((k) => BigInt(k.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(all.find((k) => k.id === other.apiKey.id)?.username).toBe(other.username);
    const mine = await store.list(tenant.username);
    expect(mine.map((k) => k.id)).toEqual([tenant.apiKey.id, tenant.test!.apiKey.id]);
    expect(new Set(mine.map((k) => k.username))).toEqual(new Set([tenant.username]));
  });

  it('finds a key by the hash of its secret, with its account and password hash, and nothing for an unknown secret', async () => {
    const found = await store.findByHash(hashApiKey(other.key));
    expect(found?.id).toBe(other.apiKey.id);
    expect(found?.account.username).toBe(other.username);
    expect(found?.account.passwordHash).toMatch(/^\$argon2/);
    expect(await store.findByHash(hashApiKey('bmk_not-a-key'))).toBeNull();
  });

  it('changes a live key, and refuses with false to change one that is revoked', async () => {
    const k = await createTenant(ctx);
    expect(await store.updateLive(k.apiKey.id, { name: 'renamed' })).toBe(true);
    expect((await store.findById(k.apiKey.id))?.name).toBe('renamed');
    await store.update(k.apiKey.id, { revokedAt: new Date() });
    expect(await store.updateLive(k.apiKey.id, { name: 'after revoke' })).toBe(false);
    expect((await store.findById(k.apiKey.id))?.name).toBe('renamed');
  });

  it('moves last_used_at forward and never back, for several keys in one statement, leaving updated_at', async () => {
    const a = tenant.apiKey.id;
    const b = other.apiKey.id;
    const before = [await updatedAt(a), await updatedAt(b)];
    const t1 = new Date('2030-01-01T10:00:00.000Z');
    const t2 = new Date('2030-01-01T11:00:00.000Z');
    await store.touchLastUsed([
      [a, t2],
      [b, t1],
    ]);
    await store.touchLastUsed([
      [a, t1],
      [b, t2],
    ]);
    expect((await store.findById(a))?.lastUsedAt?.toISOString()).toBe(t2.toISOString());
    expect((await store.findById(b))?.lastUsedAt?.toISOString()).toBe(t2.toISOString());
    expect([await updatedAt(a), await updatedAt(b)]).toEqual(before);
  });
});
