import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SmppCredentialStore,
  type NewSmppCredential,
} from '../../src/modules/smpp-server/credentials/smpp-credential.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Every statement on smpp_credentials, on real MySQL. */

let ctx: ServiceContext;
let store: SmppCredentialStore;
let tenant: Tenant;
let other: Tenant;

/** A credential of `owner` under its live key, with a system_id of its own unless given. */
const credential = (owner: Tenant, over: Partial<NewSmppCredential> = {}): NewSmppCredential => ({
  accountId: owner.account.id,
  apiKeyId: owner.apiKey.id,
  systemId: `esme${randomBytes(4).toString('hex')}`,
  passwordHash: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA',
  mode: 'live',
  allowedIps: null,
  maxBinds: 4,
  tps: 100,
  ...over,
});

const passwordHashOf = async (id: number) =>
  (
    (await ctx.ds.query('SELECT password_hash FROM smpp_credentials WHERE id = ?', [id])) as Array<{
      password_hash: string;
    }>
  )[0].password_hash;

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [SmppCredentialStore]);
  store = ctx.get(SmppCredentialStore);
  tenant = await createTenant(ctx, { test: true });
  other = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('SmppCredentialStore', () => {
  it("reads an inserted credential back with its account's username and no password hash", async () => {
    const made = credential(tenant, { allowedIps: ['10.0.0.0/8', '192.0.2.7'], maxBinds: 2, tps: 50 });
    const c = await store.insert(made);
    expect(c).toMatchObject({
      accountId: tenant.account.id,
      apiKeyId: tenant.apiKey.id,
      systemId: made.systemId,
      mode: 'live',
      allowedIps: ['10.0.0.0/8', '192.0.2.7'],
      maxBinds: 2,
      tps: 50,
      revokedAt: null,
      username: tenant.username,
    });
    expect(c!.createdAt).toBeInstanceOf(Date);
    expect(c).not.toHaveProperty('passwordHash');
    expect(await store.findById(c!.id)).toEqual(c);
    expect(await store.findBySystemId(made.systemId)).toEqual(c);
  });

  it('keeps no allowed addresses as null (any address), whether given null or an empty list', async () => {
    const a = await store.insert(credential(tenant, { allowedIps: [] }));
    const b = await store.insert(credential(tenant, { allowedIps: null }));
    expect([a!.allowedIps, b!.allowedIps]).toEqual([null, null]);
    const [row] = (await ctx.ds.query('SELECT allowed_ips FROM smpp_credentials WHERE id = ?', [
      a!.id,
    ])) as Array<{
      allowed_ips: unknown;
    }>;
    expect(row.allowed_ips).toBeNull();
  });

  it('answers null for a system_id already taken, by any account, and leaves the first credential as it was', async () => {
    const first = await store.insert(credential(tenant));
    const again = await store.insert(
      credential(other, { systemId: first!.systemId, passwordHash: 'another hash', tps: 1 }),
    );
    expect(again).toBeNull();
    expect(await store.findBySystemId(first!.systemId)).toEqual(first);
    expect(await passwordHashOf(first!.id)).not.toBe('another hash');
    const rows = (await ctx.ds.query('SELECT COUNT(*) AS n FROM smpp_credentials WHERE system_id = ?', [
      first!.systemId,
    ])) as Array<{ n: number | string }>;
    expect(Number(rows[0].n)).toBe(1);
  });

  it('finds nothing for an unknown system_id or id', async () => {
    expect(await store.findBySystemId('nobody')).toBeNull();
    expect(await store.findForBind('nobody')).toBeNull();
    expect(await store.findById(999_999)).toBeNull();
  });

  it('gives a bind the password hash, and a revoked credential with its revocation time', async () => {
    const made = credential(tenant, { passwordHash: 'hash-for-bind' });
    const c = await store.insert(made);
    expect(await store.findForBind(made.systemId)).toEqual({ ...c, passwordHash: 'hash-for-bind' });
    const revokedAt = new Date('2030-01-02T03:04:05.678Z');
    await store.update(c!.id, { revokedAt });
    const found = await store.findForBind(made.systemId);
    expect(found?.revokedAt?.toISOString()).toBe(revokedAt.toISOString());
    expect(found?.passwordHash).toBe('hash-for-bind');
    expect((await store.findBySystemId(made.systemId))?.revokedAt?.toISOString()).toBe(
      revokedAt.toISOString(),
    );
  });

  it('lists every credential oldest first, or those of one account alone', async () => {
    const mine = await store.insert(credential(tenant, { mode: 'test', apiKeyId: tenant.test!.apiKey.id }));
    const theirs = await store.insert(credential(other));
    const all = await store.list();
    const ids = all.map((c) => c.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(all.find((c) => c.id === theirs!.id)?.username).toBe(other.username);
    const listed = await store.list(tenant.username);
    expect(listed.map((c) => c.id)).toContain(mine!.id);
    expect(listed.map((c) => c.id)).not.toContain(theirs!.id);
    expect(new Set(listed.map((c) => c.accountId))).toEqual(new Set([tenant.account.id]));
    expect(listed.find((c) => c.id === mine!.id)?.mode).toBe('test');
    expect((await store.list(other.username)).map((c) => c.id)).toEqual([theirs!.id]);
    expect(await store.list('no_such_user')).toEqual([]);
  });

  it('changes only the columns given, of only the credential given', async () => {
    const c = await store.insert(credential(tenant, { allowedIps: ['10.1.1.1'], maxBinds: 4, tps: 100 }));
    const bystander = await store.insert(credential(tenant));
    const hash = await passwordHashOf(c!.id);
    await store.update(c!.id, { tps: 7 });
    expect(await store.findById(c!.id)).toMatchObject({ tps: 7, maxBinds: 4, allowedIps: ['10.1.1.1'] });
    expect(await passwordHashOf(c!.id)).toBe(hash);
    await store.update(c!.id, { maxBinds: 1, allowedIps: ['10.2.0.0/16'], passwordHash: 'new hash' });
    expect(await store.findById(c!.id)).toMatchObject({ tps: 7, maxBinds: 1, allowedIps: ['10.2.0.0/16'] });
    expect(await passwordHashOf(c!.id)).toBe('new hash');
    await store.update(c!.id, { allowedIps: [] });
    expect((await store.findById(c!.id))?.allowedIps).toBeNull();
    await store.update(c!.id, {});
    expect(await store.findById(bystander!.id)).toEqual(bystander);
  });
});
