import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsModule } from '../../src/modules/accounts/accounts.module.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import { SegmentAssembler } from '../../src/modules/smpp-server/segments/segment.assembler.js';
import type { SegmentRow } from '../../src/modules/smpp-server/segments/segment.store.js';
import { SmppServerModule } from '../../src/modules/smpp-server/smpp-server.module.js';
import { SmppCredentialsService } from '../../src/modules/smpp-server/credentials/smpp-credentials.service.js';
import { SmppCredentialStore } from '../../src/modules/smpp-server/credentials/smpp-credential.store.js';
import { BindChecker } from '../../src/modules/smpp-server/binds/bind-check.service.js';
import { createTenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Parts of a long SMPP text kept in MySQL: given up when incomplete in time, sent by the sweep when complete. */
let ctx: ServiceContext;

beforeAll(async () => {
  ctx = await startServices([AccountsModule, ApiKeysModule, SmppServerModule], [], { SMPP_SERVER_PORT: '0' });
});

afterAll(async () => {
  await ctx?.close();
});

describe('SMPP segments', () => {
  it('gives up a text whose parts are not all in after 60 s, telling the listeners its parts, and stores nothing', async () => {
    const tenant = await createTenant(ctx, { balances: { sms: '10' }, prices: { sms: '0.1' } });
    await ctx.get(SmppCredentialsService).create({ username: tenant.username, systemId: 'seg1' });
    const credential = (await ctx.get(SmppCredentialStore).findBySystemId('seg1'))!;
    const who = (await ctx.get(BindChecker).authFor(credential.id))!;
    const assembler = ctx.get(SegmentAssembler);
    const heard: SegmentRow[][] = [];
    assembler.onIncomplete((parts) => heard.push(parts));
    const part = { from: 'ACME', to: '260971000040', registeredDelivery: 1, ref: 5, total: 3 };
    const first = await assembler.add(credential, who.auth, { ...part, text: 'one ', seq: 1 });
    const second = await assembler.add(credential, who.auth, { ...part, text: 'two ', seq: 2 });
    expect([first.status, second.status]).toEqual([0, 0]);
    // As if they had come 61 s ago.
    await ctx.ds.query('UPDATE smpp_segments SET created_at = NOW(3) - INTERVAL 61 SECOND');
    await assembler.sweepNow();
    expect(heard).toHaveLength(1);
    expect(heard[0]!.map((p) => p.id).sort()).toEqual([first.messageId, second.messageId].sort());
    const rows = (await ctx.ds.query('SELECT state, open FROM smpp_segments')) as Array<{
      state: string;
      open: number | null;
    }>;
    expect(rows).toEqual([
      { state: 'incomplete', open: null },
      { state: 'incomplete', open: null },
    ]);
    const [{ n }] = (await ctx.ds.query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', [
      tenant.account.id,
    ])) as Array<{ n: string }>;
    expect(Number(n)).toBe(0);
    // The same reference starts a new text afterwards.
    expect((await assembler.add(credential, who.auth, { ...part, text: 'again', seq: 1 })).status).toBe(0);
  });

  it('sends a complete text its process left unsent, once', async () => {
    const tenant = await createTenant(ctx, { balances: { sms: '10' }, prices: { sms: '0.1' } });
    await ctx.get(SmppCredentialsService).create({ username: tenant.username, systemId: 'seg2' });
    const credential = (await ctx.get(SmppCredentialStore).findBySystemId('seg2'))!;
    // Two parts kept, as a process that died before sending the whole leaves them.
    await ctx.ds.query(
      `INSERT INTO smpp_segments (id, credential_id, source, destination, ref, total, seqnum, registered_delivery, text, created_at)
       VALUES (1000000000000001001, ?, 'ACME', '260971000041', 9, 2, 1, 0, 'left ', NOW(3) - INTERVAL 10 SECOND),
              (1000000000000001002, ?, 'ACME', '260971000041', 9, 2, 2, 0, 'behind', NOW(3) - INTERVAL 10 SECOND)`,
      [credential.id, credential.id],
    );
    const assembler = ctx.get(SegmentAssembler);
    await assembler.sweepNow();
    await assembler.sweepNow();
    const rows = (await ctx.ds.query(
      'SELECT COALESCE(m.body, r.body) AS body, m.smpp_credential_id FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.account_id = ?',
      [tenant.account.id],
    )) as Array<{ body: string; smpp_credential_id: number }>;
    expect(rows).toEqual([{ body: 'left behind', smpp_credential_id: credential.id }]);
  });
});
