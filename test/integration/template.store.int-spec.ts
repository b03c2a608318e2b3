import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TemplateNameTaken,
  TemplateStore,
  type TemplateFields,
  type TemplateOwner,
} from '../../src/modules/templates/template.store.js';
import { createTenant, TENANT_MODULES } from '../factories/account.factory.js';
import { nextId } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The templates table: every statement scoped to one side (live or test) of one account. */

let ctx: ServiceContext;
let store: TemplateStore;
let live: TemplateOwner;
let test: TemplateOwner;
let stranger: TemplateOwner;

const fields = (name: string, over: Partial<TemplateFields> = {}): TemplateFields => ({
  name,
  channel: 'sms',
  subject: null,
  body: `Hello {{name}} from ${name}`,
  ...over,
});
const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [TemplateStore]);
  store = ctx.get(TemplateStore);
  const [t, s] = [await createTenant(ctx), await createTenant(ctx)];
  live = { accountId: t.account.id, testMode: false };
  test = { accountId: t.account.id, testMode: true };
  stranger = { accountId: s.account.id, testMode: false };
});

afterAll(() => ctx?.close());

describe('TemplateStore', () => {
  it('keeps a name unique within one side of one account, and free on the other side and elsewhere', async () => {
    await store.insert(live, nextId(), fields('welcome'), at(1));
    await expect(store.insert(live, nextId(), fields('welcome'), at(2))).rejects.toBeInstanceOf(
      TemplateNameTaken,
    );
    await store.insert(test, nextId(), fields('welcome'), at(2));
    await store.insert(stranger, nextId(), fields('welcome'), at(2));
  });

  it('reads a template only from its own side of its own account', async () => {
    const id = nextId();
    await store.insert(live, id, fields('reminder', { channel: 'email', subject: 'Due' }), at(3));
    expect(await store.find(live, id)).toMatchObject({
      id,
      name: 'reminder',
      channel: 'email',
      subject: 'Due',
    });
    expect(await store.find(test, id)).toBeUndefined();
    expect(await store.find(stranger, id)).toBeUndefined();
  });

  it('pages in creation order, filters by channel, and counts what the filter matches', async () => {
    const owner = { accountId: stranger.accountId, testMode: true };
    for (let i = 0; i < 5; i++)
      await store.insert(owner, nextId(), fields(`t${i}`, { channel: i % 2 ? 'chat' : 'sms' }), at(10 - i));
    expect((await store.list(owner, null, 2, 0)).map((t) => t.name)).toEqual(['t4', 't3']);
    expect((await store.list(owner, null, 2, 4)).map((t) => t.name)).toEqual(['t0']);
    expect((await store.list(owner, 'chat', 10, 0)).map((t) => t.name)).toEqual(['t3', 't1']);
    expect([
      await store.count(owner, null),
      await store.count(owner, 'sms'),
      await store.count(owner, 'email'),
    ]).toEqual([5, 3, 0]);
  });

  it("changes or deletes a template of its own side only, and refuses another's name on rename", async () => {
    const id = nextId();
    await store.insert(live, id, fields('draft'), at(20));
    expect(await store.update(test, id, fields('renamed'), at(21))).toBe(false);
    await expect(store.update(live, id, fields('welcome'), at(21))).rejects.toBeInstanceOf(TemplateNameTaken);
    expect(await store.update(live, id, fields('final', { body: 'new body' }), at(22))).toBe(true);
    expect(await store.find(live, id)).toMatchObject({ name: 'final', body: 'new body', updated_at: at(22) });
    expect(await store.delete(stranger, id)).toBe(false);
    expect(await store.delete(live, id)).toBe(true);
    expect(await store.find(live, id)).toBeUndefined();
  });
});
