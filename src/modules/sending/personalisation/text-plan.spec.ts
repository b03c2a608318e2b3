import { describe, expect, it } from 'vitest';
import type { SendInput } from '../channel-policy.js';
import { ChatPolicy } from '../channels/chat/chat.policy.js';
import { EmailPolicy } from '../channels/email/email.policy.js';
import { SmsPolicy } from '../channels/sms/sms.policy.js';
import { planTexts, type PlanEntry } from './text-plan.js';

const sms = new SmsPolicy();
const entries = (recipients: string[]): PlanEntry[] =>
  recipients.map((recipient, index) => ({ index, recipient, status: 'ACKNOWLEDGED' }));
const input = (over: Partial<SendInput>): SendInput => ({
  sender: 'ACME',
  recipients: ['260971000001', '260971000002'],
  body: 'Hi',
  ...over,
});

describe('planTexts', () => {
  it('measures an ordinary text once and shares it between recipients, storing no per-message text', () => {
    const e = entries(['260971000001', '260971000002']);
    const plan = planTexts(sms, input({ body: 'Hello {{x}}' }), e, false);
    expect(plan.body).toBe('Hello {{x}}');
    expect(plan.texts[0]).toBe(plan.texts[1]);
    expect(plan.texts[0]).toMatchObject({ body: null, measure: { units: 1, encoding: 'GSM-7' } });
    expect(plan.replaced).toBeNull();
  });

  it('refuses only the recipient that lacks a value, and measures the others on their own text', () => {
    const e = entries(['260971000001', '260971000002', '260971000003']);
    const plan = planTexts(
      sms,
      input({
        recipients: e.map((x) => x.recipient),
        body: '{{t}}',
        variables: { '260971000001': { t: 'a' }, '260971000003': { t: 'é'.repeat(161) } },
      }),
      e,
      false,
    );
    expect(e.map((x) => [x.status, x.reason])).toEqual([
      ['ACKNOWLEDGED', undefined],
      ['REJECTED', 'MISSING_VARIABLE'],
      ['ACKNOWLEDGED', undefined],
    ]);
    expect(plan.texts[0]?.measure.units).toBe(1);
    expect(plan.texts[1]).toBeUndefined();
    expect(plan.texts[2]?.measure).toMatchObject({
      units: 2,
      segments: 2,
      encoding: 'GSM-7',
      characters: 161,
    });
  });

  it('refuses a recipient whose text is over the limit as MESSAGE_TOO_LONG, keeping its measure for the preview', () => {
    const e = entries(['260971000001']);
    const plan = planTexts(
      new ChatPolicy(),
      input({
        recipients: ['260971000001'],
        body: '{{a}}{{a}}{{a}}{{a}}{{a}}',
        variables: { '260971000001': { a: 'x'.repeat(1000) } },
      }),
      e,
      false,
    );
    expect(e[0]).toMatchObject({ status: 'REJECTED', reason: 'MESSAGE_TOO_LONG' });
    expect(plan.texts[0]).toBeUndefined();
    expect(plan.measures[0]).toMatchObject({ characters: 5000, tooLong: 'more than 4096 characters' });
  });

  it('leaves recipients already refused alone', () => {
    const e: PlanEntry[] = [{ index: 0, recipient: 'bad', status: 'REJECTED', reason: 'INVALID_NUMBER' }];
    const plan = planTexts(sms, input({ recipients: ['bad'], body: '{{x}}', variables: {} }), e, false);
    expect(e[0].reason).toBe('INVALID_NUMBER');
    expect(plan.texts).toEqual([undefined]);
  });

  it('escapes e-mail body values and renders the subject per recipient', () => {
    const e = entries(['a@example.com']);
    const plan = planTexts(
      new EmailPolicy(),
      input({
        recipients: ['a@example.com'],
        subject: 'To {{n}}',
        body: '<b>{{n}}</b>',
        variables: { 'a@example.com': { n: 'A&B' } },
      }),
      e,
      false,
    );
    expect(plan.texts[0]).toMatchObject({ body: '<b>A&amp;B</b>', subject: 'To A&B' });
  });

  it('smart-encodes each rendered SMS text and totals the replacements across recipients', () => {
    const e = entries(['260971000001', '260971000002']);
    const plan = planTexts(
      sms,
      input({
        body: 'It\u2019s {{n}}',
        variables: { '260971000001': { n: 'Ann\u2019s' }, '260971000002': { n: 'Zoë 😀' } },
      }),
      e,
      true,
    );
    expect(plan.texts.map((t) => t?.body)).toEqual(["It's Ann's", 'It\u2019s Zoë 😀']);
    expect(plan.replaced).toEqual([{ from: '\u2019', to: "'", count: 2 }]);
    expect(plan.nonGsmCharacters).toEqual(['\u2019', 'ë', '😀']);
  });

  it('never smart-encodes e-mail or chat', () => {
    const e = entries(['260971000001']);
    const plan = planTexts(
      new ChatPolicy(),
      input({ recipients: ['260971000001'], body: 'It\u2019s' }),
      e,
      true,
    );
    expect(plan.body).toBe('It\u2019s');
    expect(plan.replaced).toBeNull();
  });
});
