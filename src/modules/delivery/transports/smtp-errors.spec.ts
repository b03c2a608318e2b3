import type { NodemailerError } from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { classifySmtpError } from './smtp-errors.js';

const err = (responseCode: number, response: string) =>
  Object.assign(new Error(response), { responseCode, response, code: 'EENVELOPE' }) as NodemailerError;

describe('SMTP refusals of the mailbox', () => {
  it('marks a permanent 5.1.x refusal as a refused mailbox (the address is suppressed)', () => {
    expect(classifySmtpError(err(550, '550 5.1.1 <a@b.example>: mailbox unavailable'))).toMatchObject({
      kind: 'permanent',
      reason: 'SMTP_550',
      mailboxRefused: true,
    });
    expect(classifySmtpError(err(553, '553-5.1.3 bad address syntax'))).toMatchObject({
      mailboxRefused: true,
    });
  });

  it('does not mark a refusal of the message itself, or a temporary one', () => {
    expect(classifySmtpError(err(552, '552 5.3.4 message too big'))).not.toHaveProperty('mailboxRefused');
    expect(classifySmtpError(err(550, '550 5.7.1 policy rejection'))).not.toHaveProperty('mailboxRefused');
    expect(classifySmtpError(err(450, '450 4.1.1 try later'))).toMatchObject({ kind: 'transient' });
  });
});
