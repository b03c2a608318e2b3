import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WebhookEndpointStore,
  type EndpointOwner,
} from '../../src/modules/callbacks/webhooks/webhook-endpoint.store.js';
import { TENANT_MODULES, createTenant } from '../factories/account.factory.js';
import { webhookFailingFor } from '../support/clock.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Webhook endpoints as stored: the cap per account, the owner in every WHERE, the failing clock. */

let ctx: ServiceContext;
let store: WebhookEndpointStore;

const endpoint = (url = 'https://hooks.example/x') => ({
  uuid: randomUUID(),
  url,
  events: ['message.delivered', 'inbound.received'],
  description: null,
  secret: 'whsec_test',
});

async function owners(): Promise<{ live: EndpointOwner; test: EndpointOwner }> {
  const tenant = await createTenant(ctx);
  return {
    live: { accountId: tenant.account.id, testMode: false },
    test: { accountId: tenant.account.id, testMode: true },
  };
}

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [WebhookEndpointStore]);
  store = ctx.get(WebhookEndpointStore);
});
afterAll(() => ctx?.close());

describe('WebhookEndpointStore', () => {
  it('inserts up to the cap per account, both sides counted, even when the inserts race', async () => {
    const { live, test } = await owners();
    expect(await store.insert(test, endpoint(), 3)).toBe(true);
    const raced = await Promise.all([1, 2, 3].map(() => store.insert(live, endpoint(), 3)));
    expect(raced.filter(Boolean)).toHaveLength(2);
    expect((await store.list(live)).length + (await store.list(test)).length).toBe(3);
  });

  it("reads, changes and deletes only the owner's side's endpoint", async () => {
    const { live, test } = await owners();
    const other = await owners();
    const e = endpoint();
    await store.insert(live, e, 10);
    const row = await store.get(live, e.uuid);
    expect(row).toMatchObject({
      url: e.url,
      events: 'message.delivered,inbound.received',
      status: 'enabled',
    });
    for (const owner of [test, other.live]) {
      expect(await store.get(owner, e.uuid)).toBeUndefined();
      expect(await store.update(owner, e.uuid, { status: 'disabled' })).toBe(false);
      expect(await store.setSecret(owner, e.uuid, 'whsec_other')).toBe(false);
      expect(await store.remove(owner, e.uuid)).toBe(false);
    }
    expect(await store.update(live, e.uuid, { events: ['*'], description: 'd' })).toBe(true);
    expect(await store.get(live, e.uuid)).toMatchObject({
      events: '*',
      description: 'd',
      secret: 'whsec_test',
    });
    expect(await store.remove(live, e.uuid)).toBe(true);
    expect(await store.byUuid(e.uuid)).toBeUndefined();
  });

  it('disables an endpoint only once its failing clock has run the hours, and a 2xx or enabling stops the clock', async () => {
    const { live } = await owners();
    const e = endpoint();
    await store.insert(live, e, 10);
    expect(await store.failed(e.uuid, 1, 'down')).toBe(false);
    expect((await store.byUuid(e.uuid))!.failing_since).not.toBeNull();
    await webhookFailingFor(ctx, e.uuid, 0.5);
    expect(await store.failed(e.uuid, 1, 'down')).toBe(false);
    await store.succeeded(e.uuid);
    expect(await store.byUuid(e.uuid)).toMatchObject({ failing_since: null, status: 'enabled' });
    await store.failed(e.uuid, 1, 'down');
    await webhookFailingFor(ctx, e.uuid, 1.5);
    expect(await store.failed(e.uuid, 1, 'HTTP 500')).toBe(true);
    expect(await store.failed(e.uuid, 1, 'HTTP 500')).toBe(false);
    expect(await store.byUuid(e.uuid)).toMatchObject({ status: 'disabled', disabled_reason: 'HTTP 500' });
    await store.update(live, e.uuid, { status: 'enabled' });
    expect(await store.byUuid(e.uuid)).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
      failing_since: null,
    });
  });

  it("reads every endpoint of the accounts asked for, both sides, and no other account's", async () => {
    const a = await owners();
    const b = await owners();
    await store.insert(a.live, endpoint(), 10);
    await store.insert(a.test, endpoint(), 10);
    await store.insert(b.live, endpoint(), 10);
    const rows = await store.ofAccounts([a.live.accountId]);
    expect(rows.map((r) => Number(r.test_mode)).sort()).toEqual([0, 1]);
    expect(await store.ofAccounts([])).toEqual([]);
  });
});
