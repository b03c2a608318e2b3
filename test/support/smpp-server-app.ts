import type { Channel } from '../../src/modules/messages/channel.js';
import {
  SmppCredentialsService,
  type CreateSmppCredentialInput,
} from '../../src/modules/smpp-server/credentials/smpp-credentials.service.js';
import { SmppListener } from '../../src/modules/smpp-server/smpp.listener.js';
import { createTenant, type HasServices, type Tenant } from '../factories/account.factory.js';
import { freePort } from './local-state.js';
import { startTestApp, uniqueName, type TestApp, type TestAppOptions } from './test-app.js';

/** The app with its SMPP server on a free loopback port (SMPP_SERVER_PORT is 0, off, in other suites). */
export async function startSmppServerApp(
  overrides: Record<string, string> = {},
  name = uniqueName(),
  options: TestAppOptions = {},
): Promise<TestApp & { smppPort: number }> {
  const t = await startTestApp({ SMPP_SERVER_PORT: String(await freePort()), ...overrides }, name, options);
  const port = t.app.get(SmppListener).ports().plain;
  if (!port) throw new Error('the SMPP server is not listening');
  return Object.assign(t, { smppPort: port });
}

export interface SmppTenant extends Tenant {
  systemId: string;
  smppPassword: string;
}

let counter = 0;

/** A tenant with an SMPP credential of its own (system_id unique per run). */
export async function createSmppTenant(
  t: HasServices,
  opts: {
    balances?: Partial<Record<Channel, string>>;
    prices?: Partial<Record<Channel, string>>;
    credential?: Omit<CreateSmppCredentialInput, 'username' | 'systemId'>;
  } = {},
): Promise<SmppTenant> {
  const tenant = await createTenant(t, { balances: opts.balances, prices: opts.prices ?? { sms: '0.5' } });
  const systemId = `s${process.pid % 100000}${(counter++).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const { password } = await t.app
    .get(SmppCredentialsService)
    .create({ username: tenant.username, systemId, ...(opts.credential ?? {}) });
  return { ...tenant, systemId, smppPassword: password };
}
