import { randomBytes } from 'node:crypto';
import { ConnectorAdminService } from '../../src/modules/delivery/smpp/connector-admin.service.js';
import type { ConnectorFields } from '../../src/modules/delivery/smpp/connector.store.js';
import type { Channel } from '../../src/modules/messages/channel.js';
import type { HasServices, Tenant } from './account.factory.js';

/**
 * Connectors, routes and destination prices as an operator makes them (the CLI's service), for
 * a spec's app or services alike (the context must hold ConnectorAdminModule).
 */

/** A connector to a named SMSC (nothing connects to it here); answers its name. */
export async function createConnector(
  t: HasServices,
  fields: Partial<ConnectorFields> & { name?: string } = {},
): Promise<string> {
  const { name = `smsc_${randomBytes(3).toString('hex')}`, ...rest } = fields;
  await t.app.get(ConnectorAdminService).add(name, {
    url: 'smpp://user:secret@127.0.0.1:2775',
    tps: 10,
    window_size: 10,
    bind_mode: 'transceiver',
    system_type: null,
    ...rest,
  });
  return name;
}

/** Routes `prefix` to `connector`, for every account or for `tenant` alone. */
export async function createRoute(
  t: HasServices,
  route: { prefix: string; connector: string; priority?: number; tenant?: Pick<Tenant, 'username'> },
): Promise<void> {
  await t.app
    .get(ConnectorAdminService)
    .addRoute(route.prefix, route.connector, route.priority ?? 0, route.tenant?.username);
}

/** Destination prices of a tenant, per channel and prefix: `{ sms: { '26097': '0.2' } }`. */
export async function setDestinationPrices(
  t: HasServices,
  tenant: Pick<Tenant, 'username'>,
  prices: Partial<Record<Channel, Record<string, string>>>,
): Promise<void> {
  const admin = t.app.get(ConnectorAdminService);
  for (const [channel, byPrefix] of Object.entries(prices))
    for (const [prefix, cost] of Object.entries(byPrefix ?? {}))
      await admin.setPrice(tenant.username, channel as Channel, prefix, cost);
}
