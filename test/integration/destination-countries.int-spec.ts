import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import { CountriesModule } from '../../src/modules/fraud/countries/countries.module.js';
import { CountriesService } from '../../src/modules/fraud/countries/countries.service.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import { SendingModule } from '../../src/modules/sending/sending.module.js';
import { AppException } from '../../src/platform/errors/app.exception.js';
import { authOf, createSubaccount, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { CHANNEL_CASES, sendOn, tenantOn, type ChannelCase } from '../support/channel-cases.js';
import { balanceOf, messagesOfRequest } from '../support/probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/**
 * Destination countries and premium-rate numbers, decided once in the send pipeline: on both
 * channels whose recipients are numbers, every path (answer, preview, fallback SMS, SMPP
 * submit) refuses the same recipients, uncharged.
 */
let ctx: ServiceContext;
let sends: SendService;
let countries: CountriesService;

const PHONE_CASES = CHANNEL_CASES.filter((c) => c.channel !== 'email');
const EMAIL = CHANNEL_CASES.find((c) => c.channel === 'email')!;
const digits = (n: number) => String(randomInt(10 ** (n - 1), 10 ** n));
const kenyan = () => `2547${digits(8)}`;
const nigerian = () => `23480${digits(8)}`;
const GB_PREMIUM = '449098790123';
const US_PREMIUM = '19005550123';

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, SendingModule, CountriesModule]);
  sends = ctx.get(SendService);
  countries = ctx.get(CountriesService);
});

afterAll(() => ctx?.close());

/** Each recipient's status and reason in a send's answer, by number. */
async function outcome(c: ChannelCase, who: Tenant | AuthContext, recipients: string[]) {
  const answer = await sendOn(sends, c, who, recipients);
  return {
    answer,
    by: Object.fromEntries(answer.entries.map((e) => [e.recipient, e.reason ?? e.status])),
  };
}

describe.each(PHONE_CASES)('$channel recipients by country', (c) => {
  it('keeps to an allow list: the others REJECTED COUNTRY_NOT_ALLOWED, stored and not charged', async () => {
    const t = await tenantOn(ctx, c, '10', '0.5');
    await countries.change(t.username, { mode: 'allow', countries: ['KE', 'ZM'] });
    const [zm] = c.recipients(1);
    const ke = kenyan();
    const ng = nigerian();
    const { answer, by } = await outcome(c, t, [zm!, ke, ng]);
    expect(by).toEqual({ [zm!]: 'ACKNOWLEDGED', [ke]: 'ACKNOWLEDGED', [ng]: 'COUNTRY_NOT_ALLOWED' });
    expect(answer.cost).toBe('1.000000');
    expect(await balanceOf(ctx, t.account.id, c.channel)).toBe('9.000000');
    const rows = await messagesOfRequest(ctx, answer.apiReference);
    expect(rows.find((r) => r.recipient === ng)).toMatchObject({
      status: 'REJECTED',
      reason: 'COUNTRY_NOT_ALLOWED',
      units: 0,
    });
  });

  it('keeps to a block list, and --all lifts it at once', async () => {
    const t = await tenantOn(ctx, c, '10', '0.5');
    await countries.change(t.username, { mode: 'block', countries: ['NG'] });
    const [zm] = c.recipients(1);
    const ng = nigerian();
    expect((await outcome(c, t, [zm!, ng])).by).toEqual({
      [zm!]: 'ACKNOWLEDGED',
      [ng]: 'COUNTRY_NOT_ALLOWED',
    });
    await countries.change(t.username, { mode: 'all' });
    const again = nigerian();
    expect((await outcome(c, t, [again])).by).toEqual({ [again]: 'ACKNOWLEDGED' });
  });

  it('refuses the whole request (400) when no recipient is left, charging nothing', async () => {
    const t = await tenantOn(ctx, c, '10', '0.5');
    await countries.change(t.username, { mode: 'allow', countries: ['ZM'] });
    const err = await sendOn(sends, c, t, [kenyan()]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppException);
    expect((err as AppException).details[0]!.message).toBe('COUNTRY_NOT_ALLOWED');
    expect(await balanceOf(ctx, t.account.id, c.channel)).toBe('10.000000');
  });

  it('refuses premium-rate numbers (PREMIUM_NUMBER) unless the account allows them', async () => {
    const t = await tenantOn(ctx, c, '10', '0.5');
    const [zm] = c.recipients(1);
    expect((await outcome(c, t, [zm!, GB_PREMIUM, US_PREMIUM])).by).toEqual({
      [zm!]: 'ACKNOWLEDGED',
      [GB_PREMIUM]: 'PREMIUM_NUMBER',
      [US_PREMIUM]: 'PREMIUM_NUMBER',
    });
    expect(await balanceOf(ctx, t.account.id, c.channel)).toBe('9.500000');
    await countries.change(t.username, { premium: true });
    expect((await outcome(c, t, [GB_PREMIUM])).by).toEqual({ [GB_PREMIUM]: 'ACKNOWLEDGED' });
  });

  it('shows the same refusals in the preview, storing and charging nothing', async () => {
    const t = await tenantOn(ctx, c, '10', '0.5');
    await countries.change(t.username, { mode: 'block', countries: ['KE'] });
    const ke = kenyan();
    const [zm] = c.recipients(1);
    const preview = await sends.preview(c.policy, authOf(t), c.input([zm!, ke, GB_PREMIUM]));
    expect(preview.entries.map((e) => [e.recipient, e.status, e.reason, e.cost])).toEqual([
      [zm, 'ACKNOWLEDGED', undefined, '0.500000'],
      [ke, 'REJECTED', 'COUNTRY_NOT_ALLOWED', '0'],
      [GB_PREMIUM, 'REJECTED', 'PREMIUM_NUMBER', '0'],
    ]);
    expect(preview.cost).toBe('0.500000');
  });
});

describe('a sub-account', () => {
  const [sms] = PHONE_CASES;

  it('never reaches a country its parent may not, whatever its own setting', async () => {
    const parent = await tenantOn(ctx, sms!, '10', '0.5');
    const child = authOf(await createSubaccount(ctx, parent, { transfers: { sms: '5' } }));
    await countries.change(parent.username, { mode: 'allow', countries: ['ZM', 'NG'] });
    const ke = kenyan();
    const ng = nigerian();
    const [zm] = sms!.recipients(1);
    // Its own default (every country) is bounded by the parent's list.
    expect((await outcome(sms!, child, [zm!, ke])).by).toEqual({
      [zm!]: 'ACKNOWLEDGED',
      [ke]: 'COUNTRY_NOT_ALLOWED',
    });
    // A wider list of its own, set by the parent, is bounded all the same; a narrower one narrows.
    await countries.changeSubaccount(parent.account, child.account.username, { allow: ['KE', 'ZM'] });
    const view = await countries.view(child.account);
    expect(view.effective).toEqual({ mode: 'allow', countries: ['ZM'], premium: false });
    const ke2 = kenyan();
    const [zm2] = sms!.recipients(1);
    expect((await outcome(sms!, child, [zm2!, ke2, ng])).by).toEqual({
      [zm2!]: 'ACKNOWLEDGED',
      [ke2]: 'COUNTRY_NOT_ALLOWED',
      [ng]: 'COUNTRY_NOT_ALLOWED',
    });
    // A change of the parent reaches the child's next send at once.
    await countries.change(parent.username, { mode: 'all' });
    const ke3 = kenyan();
    expect((await outcome(sms!, child, [ke3])).by).toEqual({ [ke3]: 'ACKNOWLEDGED' });
  });

  it('is refused premium-rate numbers unless both it and its parent allow them', async () => {
    const parent = await tenantOn(ctx, sms!, '10', '0.5');
    const child = authOf(await createSubaccount(ctx, parent, { transfers: { sms: '5' } }));
    await countries.change(parent.username, { premium: true });
    expect((await outcome(sms!, parent, [GB_PREMIUM])).by).toEqual({ [GB_PREMIUM]: 'ACKNOWLEDGED' });
    const refused = await sendOn(sends, sms!, child, [GB_PREMIUM]).catch((e: unknown) => e);
    expect((refused as AppException).details[0]!.message).toBe('PREMIUM_NUMBER');
    await countries.change(child.account.username, { premium: true });
    expect((await outcome(sms!, child, [US_PREMIUM])).by).toEqual({ [US_PREMIUM]: 'ACKNOWLEDGED' });
  });
});

describe('the paths that store a refused send', () => {
  const [sms] = PHONE_CASES;

  it('stores a fallback SMS outside the countries REJECTED, uncharged, instead of refusing it', async () => {
    const t = await tenantOn(ctx, sms!, '10', '0.5');
    await countries.change(t.username, { mode: 'allow', countries: ['ZM'] });
    const ke = kenyan();
    const answer = await sendOn(sends, sms!, t, [ke], { fallbackOf: String(randomInt(1, 2 ** 40)) });
    expect(answer.entries).toMatchObject([
      { recipient: ke, status: 'REJECTED', reason: 'COUNTRY_NOT_ALLOWED' },
    ]);
    expect(await messagesOfRequest(ctx, answer.apiReference)).toMatchObject([
      { recipient: ke, status: 'REJECTED', reason: 'COUNTRY_NOT_ALLOWED', units: 0 },
    ]);
    expect(await balanceOf(ctx, t.account.id)).toBe('10.000000');
  });

  it('stores an SMPP submit to a premium-rate number REJECTED (its receipt says REJECTD)', async () => {
    const t = await tenantOn(ctx, sms!, '10', '0.5');
    const answer = await sendOn(sends, sms!, t, [US_PREMIUM], {
      smpp: { credentialId: randomInt(1, 2 ** 30), registeredDelivery: 1 },
    });
    expect(answer.entries).toMatchObject([{ status: 'REJECTED', reason: 'PREMIUM_NUMBER' }]);
    expect(await balanceOf(ctx, t.account.id)).toBe('10.000000');
  });
});

it('leaves e-mail alone: an allow list names countries of numbers only', async () => {
  const t = await tenantOn(ctx, EMAIL, '10', '0.5');
  await countries.change(t.username, { mode: 'allow', countries: ['ZM'] });
  const answer = await sendOn(sends, EMAIL, t, EMAIL.recipients(2));
  expect(answer.acceptedCount).toBe(2);
});
