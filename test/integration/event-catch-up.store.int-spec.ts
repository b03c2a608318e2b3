import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { NOTIFICATION_DB } from '../../src/database/data-sources.js';
import { EventCatchUpStore } from '../../src/modules/callbacks/event-catch-up.store.js';
import { EventCatchUp, historyJournal } from '../../src/modules/callbacks/event-catch-up.js';
import {
  MessageHistoryStore,
  type RecordedChange,
} from '../../src/modules/messages/message-history.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { moveTo, ownerOf, storeSend } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The catch-up's mark (notification database) and the rounds that move it, on real MySQL. */

let ctx: ServiceContext;
let marks: EventCatchUpStore;
let history: MessageHistoryStore;
let notifications: DataSource;
let tenant: Tenant;

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, MessagesModule], [EventCatchUpStore]);
  marks = ctx.get(EventCatchUpStore);
  history = ctx.get(MessageHistoryStore);
  notifications = ctx.get<DataSource>(getDataSourceToken(NOTIFICATION_DB));
  tenant = await createTenant(ctx);
});
afterAll(() => ctx?.close());

const changes = () => historyJournal(history, 'message_events', (a, f, u) => history.changesOf(a, f, u));
const DAY = 86_400_000;
const limits = (graceMs: number, skips: Array<[string, string]> = []) => ({
  graceMs,
  reachMs: 7 * DAY,
  skipped: (from: string, to: string) => void skips.push([from, to]),
});

/** Ages the mark's horizon as if it had been taken `ms` earlier. */
const ageHorizon = (name: string, ms: number) =>
  notifications.query(
    'UPDATE event_catch_up SET horizon_at = horizon_at - INTERVAL ? MICROSECOND WHERE name = ?',
    [ms * 1000, name],
  );

describe('EventCatchUpStore', () => {
  it('starts once, takes a horizon only when none stands unreached, and says when it is due', async () => {
    expect(await marks.get('first', 1000)).toBeUndefined();
    await marks.start('first', '10');
    await marks.start('first', '99');
    expect(await marks.get('first', 1000)).toEqual({ lastId: '10', horizonId: null, horizonDue: false });
    await marks.takeHorizon('first', '20');
    await marks.takeHorizon('first', '30');
    expect(await marks.get('first', 1000)).toEqual({ lastId: '10', horizonId: '20', horizonDue: false });
    await ageHorizon('first', 1500);
    expect((await marks.get('first', 1000))?.horizonDue).toBe(true);
  });

  it('moves the mark only from the value it was read at', async () => {
    await marks.start('moved', '5');
    expect(await marks.advance('moved', '5', '8')).toBe(true);
    expect(await marks.advance('moved', '5', '9')).toBe(false);
    expect((await marks.get('moved', 0))?.lastId).toBe('8');
  });
});

describe('EventCatchUp', () => {
  it('passes each change once, only up to a horizon past its grace, and none before its start', async () => {
    const early = await storeSend(ctx, ownerOf(tenant), { messages: ['260971000201'] });
    await moveTo(ctx, early.ids, 'SENT');
    const seen: RecordedChange[] = [];
    const catchUp = new EventCatchUp('rounds', marks, changes(), limits(60_000), {
      accounts: async () => [tenant.account.id],
      keep: async (rows) => {
        seen.push(...rows);
        return rows.length;
      },
    });
    expect(await catchUp.round()).toBe(0); // starts after what is there
    const send = await storeSend(ctx, ownerOf(tenant), { messages: ['260971000202', '260971000203'] });
    await moveTo(ctx, send.ids, 'SENT');
    expect(await catchUp.round()).toBe(0); // takes the horizon
    const later = await storeSend(ctx, ownerOf(tenant), { messages: ['260971000204'] });
    await moveTo(ctx, later.ids, 'SENT');
    expect(await catchUp.round()).toBe(0); // the horizon is within its grace
    await ageHorizon('rounds', 61_000);
    expect(await catchUp.round()).toBe(2); // up to the horizon, not past it
    expect(seen.map((c) => c.message.id)).toEqual(send.ids);
    await ageHorizon('rounds', 61_000); // the next horizon (taken on reaching the first)
    expect(await catchUp.round()).toBe(1);
    expect(seen.map((c) => c.message.id)).toEqual([...send.ids, ...later.ids]);
    await ageHorizon('rounds', 61_000);
    expect(await catchUp.round()).toBe(0);
  });

  it('reads no event when no account is owed anything, and still moves the mark', async () => {
    let reads = 0;
    const catchUp = new EventCatchUp('nobody', marks, changes(), limits(0), {
      accounts: async () => [],
      keep: async () => ++reads,
    });
    await catchUp.round();
    const send = await storeSend(ctx, ownerOf(tenant), { messages: ['260971000211'] });
    await moveTo(ctx, send.ids, 'SENT');
    await catchUp.round();
    await catchUp.round();
    expect(reads).toBe(0);
    expect((await marks.get('nobody', 0))?.lastId).toBe(await history.lastId('message_events'));
  });

  it('moves a mark left behind past what the delivery log keeps to the rows within it, unread, and says so', async () => {
    const seen: string[] = [];
    const skips: Array<[string, string]> = [];
    const catchUp = new EventCatchUp(
      'behind',
      marks,
      historyJournal(history, 'messages', (a, f, u) => history.sendsOf(a, f, u)),
      limits(0, skips),
      {
        accounts: async () => [tenant.account.id],
        keep: async (rows) => {
          seen.push(...rows.map((m) => m.messageId));
          return rows.length;
        },
      },
    );
    const old = await storeSend(ctx, ownerOf(tenant), {
      messages: ['260971000221'],
      request: { createdAt: new Date(Date.now() - 8 * DAY) },
    });
    const within = await storeSend(ctx, ownerOf(tenant), {
      messages: ['260971000222'],
      request: { createdAt: new Date(Date.now() - 6 * DAY) },
    });
    // The mark as a sweep that stopped 9 days ago left it.
    await marks.start('behind', (BigInt(old.ids[0]) - 1n).toString());
    await catchUp.round(); // moves past the old row, takes the horizon
    expect(skips).toHaveLength(1);
    expect(BigInt(skips[0][1]) >= BigInt(old.ids[0]) && BigInt(skips[0][1]) < BigInt(within.ids[0])).toBe(
      true,
    );
    await catchUp.round(); // reads up to the horizon
    expect(seen).toContain(within.ids[0]);
    expect(seen).not.toContain(old.ids[0]);
    await catchUp.round();
    expect(skips).toHaveLength(1);
  });
});
