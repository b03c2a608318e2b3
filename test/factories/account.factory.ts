import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import type { Account } from '../../src/modules/accounts/account.entity.js';
import { ApiKeysService, type CreateKeyInput } from '../../src/modules/api-keys/api-keys.service.js';
import type { ApiKey } from '../../src/modules/api-keys/api-key.entity.js';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { TransferStore } from '../../src/modules/balance/transfer.store.js';
import type { Channel } from '../../src/modules/messages/channel.js';

/** Where the factories make their rows: an e2e spec's app or an integration spec's services. */
export interface HasServices {
  app: Pick<INestApplicationContext, 'get'>;
}

export interface Tenant {
  account: Account;
  apiKey: ApiKey;
  key: string;
  username: string;
  password: string;
}

/** An account with balances, prices and one API key, in one call. */
export async function createTenant(
  t: HasServices,
  opts: {
    balances?: Partial<Record<Channel, string>>;
    prices?: Partial<Record<Channel, string>>;
    key?: Omit<CreateKeyInput, 'username' | 'name'>;
    currency?: string;
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
  return { account, apiKey, key: secret, username, password };
}

/** Who a tenant's key calls as, for the services called without HTTP (what the auth guard finds). */
export function authOf(tenant: Pick<Tenant, 'account' | 'apiKey'>): AuthContext {
  return { account: tenant.account, key: tenant.apiKey };
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
