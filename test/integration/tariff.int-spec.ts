import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorAdminModule } from '../../src/modules/delivery/smpp/connector-admin.module.js';
import { RoutingModule } from '../../src/modules/delivery/smpp/routing.module.js';
import {
  NO_ROUTE,
  RoutingService,
  type RoutedRecipient,
} from '../../src/modules/delivery/smpp/routing.service.js';
import { Tariff, TariffService } from '../../src/modules/sending/tariff.service.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { createConnector, createRoute, setDestinationPrices } from '../factories/route.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/**
 * An account's tariff: its routes and prices on one channel, answered at once while both are
 * remembered and through one promise otherwise, on real MySQL with routing on (SMPP, no default
 * connector: a destination no route matches is unroutable).
 */
describe('TariffService', () => {
  let ctx: ServiceContext;
  let tariffs: TariffService;
  let tenant: Tenant;

  const entries = (...recipients: string[]): RoutedRecipient[] =>
    recipients.map((recipient) => ({ recipient, status: 'ACKNOWLEDGED' }));

  beforeAll(async () => {
    ctx = await startServices([...TENANT_MODULES, ConnectorAdminModule, RoutingModule], [TariffService], {
      SMS_TRANSPORT: 'smpp',
    });
    tariffs = ctx.get(TariffService);
    tenant = await createTenant(ctx, { prices: { sms: '0.10', email: '0.01' } });
    const connector = await createConnector(ctx);
    await createRoute(ctx, { prefix: '26097', connector });
    await setDestinationPrices(ctx, tenant, { sms: { '26097': '0.25' } });
    await ctx.get(RoutingService).refresh();
  }, 60_000);

  afterAll(() => ctx?.close());

  it('reads what it does not remember through a promise, then answers at once from what it read', async () => {
    const first = tariffs.of(tenant.account.id, 'sms');
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBeInstanceOf(Tariff);
    expect(tariffs.of(tenant.account.id, 'sms')).toBeInstanceOf(Tariff);
  });

  it('rejects the SMS recipients no route takes with NO_ROUTE and leaves the others', async () => {
    const list = entries('+260971234567', '+447700900123');
    (await tariffs.of(tenant.account.id, 'sms')).rejectUnroutable(list);
    expect(list.map((e) => [e.status, e.reason])).toEqual([
      ['ACKNOWLEDGED', undefined],
      ['REJECTED', NO_ROUTE],
    ]);
  });

  it("prices each recipient by its destination's price, else the channel's", async () => {
    const tariff = await tariffs.of(tenant.account.id, 'sms');
    expect(tariff.unitPrices(entries('+260971234567', '+447700900123'))).toEqual(['0.250000', '0.100000']);
  });

  it('routes no one away on a channel without routes, and prices it by its channel price', async () => {
    const list = entries('someone@example.com');
    const tariff = await tariffs.of(tenant.account.id, 'email');
    tariff.rejectUnroutable(list);
    expect(list[0]!.status).toBe('ACKNOWLEDGED');
    expect(tariff.unitPrices(list)).toEqual(['0.010000']);
  });
});
