import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { AccountsModule } from '../../src/modules/accounts/accounts.module.js';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import type { Account } from '../../src/modules/accounts/account.entity.js';
import { ApiKeysService, type CreateKeyInput } from '../../src/modules/api-keys/api-keys.service.js';
import type { ApiKey } from '../../src/modules/api-keys/api-key.entity.js';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import { BalanceModule } from '../../src/modules/balance/balance.module.js';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { TransferStore } from '../../src/modules/balance/transfer.store.js';
import type { Channel } from '../../src/modules/messages/channel.js';

/** Where the factories make their rows: an e2e spec's app or an integration spec's services. */
export interface HasServices {
  app: Pick<INestApplicationContext, 'get'>;
}

/** The modules these factories need in a services context (startServices). */
export const TENANT_MODULES = [AccountsModule, ApiKeysModule, BalanceModule];

/** A key and, once only, its secret. */
export interface TenantKey {
  apiKey: ApiKey;
  key: string;
}

export interface Tenant extends TenantKey {
  account: Account;
  username: string;
  password: string;
  /** A test-mode key of the same account, made when asked for (`test: true`). */
  test?: TenantKey;
}

/**
 * An account with balances, prices and one API key (live unless `key.mode` says otherwise), in
 * one call; with `test: true` a test-mode key beside it, so a spec can look at both sides.
 */
export async function createTenant(
  t: HasServices,
  opts: {
    balances?: Partial<Record<Channel, string>>;
    prices?: Partial<Record<Channel, string>>;
    key?: Omit<CreateKeyInput, 'username' | 'name'>;
    currency?: string;
    test?: boolean;
  } = {},
): Promise<Tenant> {
  const username = `user_${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const account = await t.app
    .get(AccountsService)
    .create({ username, password, currency: opts.currency ?? 'ZMW' });
  const balances = t.app.get(BalanceService);
  for (const [channel, price] of Object.entries(opts.prices ?? {}))
    await balances.setPrice(account.id, channel as Channel, price);
  const amounts = opts.balances ?? { sms: '1000', email: '1000', chat: '1000' };
  for (const [channel, amount] of Object.entries(amounts))
    await balances.topUp(account.id, channel as Channel, amount);
  const { apiKey, secret } = await t.app
    .get(ApiKeysService)
    .create({ username, name: 'test key', ...(opts.key ?? {}) });
  const tenant: Tenant = { account, apiKey, key: secret, username, password };
  if (opts.test) {
    const made = await t.app.get(ApiKeysService).create({ username, name: 'test-mode key', mode: 'test' });
    tenant.test = { apiKey: made.apiKey, key: made.secret };
  }
  return tenant;
}

/** Who a tenant's key calls as, for the services called without HTTP (what the auth guard finds). */
export function authOf(tenant: Pick<Tenant, 'account' | 'apiKey'>): AuthContext {
  return { account: tenant.account, key: tenant.apiKey };
}

/** The caller of a tenant's test-mode key (the tenant made with `test: true`). */
export function testAuthOf(tenant: Pick<Tenant, 'account' | 'test'>): AuthContext {
  if (!tenant.test) throw new Error('the tenant was made without a test key (createTenant with test: true)');
  return { account: tenant.account, key: tenant.test.apiKey };
}

/**
 * A sub-account of `parent` with one API key: created as an operator would (no password), its
 * balances moved from the parent with transfers (the parent must hold them).
 */
export async function createSubaccount(
  t: HasServices,
  parent: Tenant,
  opts: {
    transfers?: Partial<Record<Channel, string>>;
    key?: Omit<CreateKeyInput, 'username' | 'name'>;
  } = {},
): Promise<Omit<Tenant, 'password'>> {
  const username = `sub_${randomBytes(4).toString('hex')}`;
  const account = await t.app.get(AccountsService).create({ username, parent: parent.username });
  for (const [channel, amount] of Object.entries(opts.transfers ?? {}))
    await t.app.get(TransferStore).transfer(parent.account.id, account.id, channel as Channel, amount);
  const { apiKey, secret } = await t.app
    .get(ApiKeysService)
    .create({ username, name: 'sub-account key', ...(opts.key ?? {}) });
  return { account, apiKey, key: secret, username };
}
