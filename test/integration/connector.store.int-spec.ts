import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorAdminModule } from '../../src/modules/delivery/smpp/connector-admin.module.js';
import {
  ConnectorStore,
  type ConnectorStateReport,
} from '../../src/modules/delivery/smpp/connector.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { createConnector, createRoute } from '../factories/route.factory.js';
import { ageConnectorState } from '../support/clock.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** connectors, routes and connector_state, on real MySQL. */

let ctx: ServiceContext;
let store: ConnectorStore;
let tenant: Tenant;

const idOf = async (name: string) => (await store.connector(name))!.id;
const state = (connector: string, over: Partial<ConnectorStateReport> = {}): ConnectorStateReport => ({
  connector,
  bound: true,
  inFlight: 2,
  queued: 5,
  sentPerSecond: 12.34,
  lastError: null,
  ...over,
});

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, ConnectorAdminModule]);
  store = ctx.get(ConnectorStore);
  tenant = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('ConnectorStore: connectors', () => {
  it('refuses a taken name with false, and lists connectors by name', async () => {
    await createConnector(ctx, { name: 'zeta' });
    await createConnector(ctx, { name: 'alpha', tps: 50 });
    expect(
      await store.insertConnector('zeta', {
        url: 'smpp://x@h:1',
        tps: 1,
        window_size: 1,
        bind_mode: 'transmitter',
        system_type: null,
      }),
    ).toBe(false);
    const names = (await store.connectors()).map((c) => c.name);
    expect(names).toEqual([...names].sort());
    expect(await store.connector('alpha')).toMatchObject({
      tps: 50,
      window_size: 10,
      bind_mode: 'transceiver',
      system_type: null,
    });
    expect(await store.connector('missing')).toBeUndefined();
  });

  it('changes only the fields given, clears system_type with null, and toggles enabled', async () => {
    await createConnector(ctx, { name: 'edit-me', system_type: 'VMA' });
    const id = await idOf('edit-me');
    await store.updateConnector(id, { tps: 99 });
    expect(await store.connector('edit-me')).toMatchObject({ tps: 99, window_size: 10, system_type: 'VMA' });
    await store.updateConnector(id, { system_type: null, enabled: false });
    const row = await store.connector('edit-me');
    expect(row).toMatchObject({ tps: 99, system_type: null });
    expect(Number(row!.enabled)).toBe(0);
    await store.deleteConnector(id);
    expect(await store.connector('edit-me')).toBeUndefined();
  });
});

describe('ConnectorStore: routes', () => {
  it('keeps one route per account, prefix and connector: adding it again sets its priority', async () => {
    await createConnector(ctx, { name: 'r1' });
    await createRoute(ctx, { prefix: '26097', connector: 'r1', priority: 1, tenant });
    await createRoute(ctx, { prefix: '26097', connector: 'r1', priority: 3, tenant });
    const r1 = await idOf('r1');
    const mine = (await store.routes()).filter((r) => r.connector_id === r1);
    expect(mine.map((r) => [String(r.account_id), r.prefix, r.priority])).toEqual([
      [tenant.account.id, '26097', 3],
    ]);
    expect(await store.countRoutesOf(r1)).toBe(1);
  });

  it("lists routes by prefix, the global one before an account's, with connector and username", async () => {
    await createConnector(ctx, { name: 'v1' });
    await createConnector(ctx, { name: 'v2' });
    await createRoute(ctx, { prefix: '26096', connector: 'v2', priority: 2 });
    await createRoute(ctx, { prefix: '26096', connector: 'v1', priority: 1 });
    await createRoute(ctx, { prefix: '26096', connector: 'v1', priority: 1, tenant });
    const views = (await store.routeViews()).filter((r) => r.prefix === '26096');
    expect(views.map((r) => [r.connector, r.priority, r.username])).toEqual([
      ['v1', 1, null],
      ['v2', 2, null],
      ['v1', 1, tenant.username],
    ]);
  });

  it("deletes an account's routes of a prefix, on one connector or on all, and says how many", async () => {
    await createConnector(ctx, { name: 'd1' });
    await createConnector(ctx, { name: 'd2' });
    for (const c of ['d1', 'd2']) await createRoute(ctx, { prefix: '26095', connector: c, tenant });
    await createRoute(ctx, { prefix: '26095', connector: 'd1' });
    expect(await store.deleteRoutes(tenant.account.id, '26095', await idOf('d1'))).toBe(1);
    expect(await store.deleteRoutes(tenant.account.id, '26095', null)).toBe(1);
    expect(await store.deleteRoutes(tenant.account.id, '26095', null)).toBe(0);
    expect(await store.countRoutesOf(await idOf('d1'))).toBe(1);
  });
});

describe('ConnectorStore: live state', () => {
  it('keeps one row per worker and connector, replaced by each report, the error cut to its column', async () => {
    await store.reportState('w1', [state('a'), state('b', { bound: false })]);
    await store.reportState('w1', [
      state('a', { inFlight: 7, lastError: { message: 'e'.repeat(400), at: new Date() } }),
    ]);
    await store.reportState('w2', [state('a', { sentPerSecond: 0.06 })]);
    const rows = (await store.liveState(60_000)).sort((x, y) =>
      `${x.worker}${x.connector}`.localeCompare(`${y.worker}${y.connector}`),
    );
    expect(
      rows.map((r) => [
        r.worker,
        r.connector,
        Number(r.bound),
        r.in_flight,
        r.sent_per_second,
        r.last_error?.length ?? null,
      ]),
    ).toEqual([
      ['w1', 'a', 1, 7, '12.3', 255],
      ['w1', 'b', 0, 2, '12.3', null],
      ['w2', 'a', 1, 2, '0.1', null],
    ]);
  });

  it('drops the rows of a stopping worker, and leaves out rows older than asked', async () => {
    await store.reportState('w3', [state('a')]);
    await store.clearState('w1');
    expect((await store.liveState(60_000)).map((r) => r.worker).sort()).toEqual(['w2', 'w3']);
    await ageConnectorState(ctx, 'w2', 3_600_000);
    expect((await store.liveState(60_000)).map((r) => r.worker)).toEqual(['w3']);
  });
});
