import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsModule } from '../../src/modules/accounts/accounts.module.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import { MessageStateStore } from '../../src/modules/messages/message-state.store.js';
import { SmsPolicy } from '../../src/modules/sending/channels/sms/sms.policy.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import { SendingModule } from '../../src/modules/sending/sending.module.js';
import { SmppCredentialStore } from '../../src/modules/smpp-server/credentials/smpp-credential.store.js';
import { authOf, createTenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** A message submitted over SMPP carries its credential and registered_delivery to the state listeners. */
let ctx: ServiceContext;

beforeAll(async () => {
  ctx = await startServices([AccountsModule, ApiKeysModule, SendingModule], [SmppCredentialStore]);
});

afterAll(async () => {
  await ctx?.close();
});

describe('SMPP marks on messages', () => {
  it('stores the credential and registered_delivery with the message and hands them to a state change', async () => {
    const tenant = await createTenant(ctx, { balances: { sms: '10' }, prices: { sms: '0.1' } });
    const credential = await ctx.get(SmppCredentialStore).insert({
      accountId: tenant.account.id,
      apiKeyId: tenant.apiKey.id,
      systemId: `m${Date.now() % 1e9}`,
      passwordHash: 'x',
      mode: 'live',
      allowedIps: ['10.0.0.0/8'],
      maxBinds: 4,
      tps: 100,
    });
    expect(credential).toMatchObject({ maxBinds: 4, tps: 100, allowedIps: ['10.0.0.0/8'], mode: 'live' });
    const sends = ctx.get(SendService);
    const smpp = await sends.send(new SmsPolicy(), authOf(tenant), {
      sender: 'ACME',
      recipients: ['260971000001'],
      body: 'over smpp',
      smpp: { credentialId: credential!.id, registeredDelivery: 1 },
    });
    const http = await sends.send(new SmsPolicy(), authOf(tenant), {
      sender: 'ACME',
      recipients: ['260971000002'],
      body: 'over http',
    });
    const ids = [smpp.entries[0]!.messageId, http.entries[0]!.messageId];
    const locked = await ctx.ds.transaction((em) => ctx.get(MessageStateStore).lockForTransition(em, ids));
    const byId = new Map(locked.map((m) => [String(m.id), m]));
    expect(byId.get(ids[0]!)).toMatchObject({ smppCredentialId: credential!.id, smppRegisteredDelivery: 1 });
    expect(byId.get(ids[1]!)).toMatchObject({ smppCredentialId: null, smppRegisteredDelivery: null });
  });
});
