import { describe, expect, it } from 'vitest';
import { AppException } from '../../platform/errors/app.exception.js';
import { maskedText, verificationText } from './verification-text.js';

describe('the text of a verification', () => {
  it('defaults to "Your code is {{code}}", with the subject "Your code" for e-mail', () => {
    expect(verificationText('sms', undefined, undefined, undefined)).toEqual({
      body: 'Your code is {{code}}',
      subject: null,
    });
    expect(verificationText('email', undefined, undefined, undefined).subject).toBe('Your code');
  });

  it('refuses a message without {{code}}, or with another placeholder', () => {
    expect(() => verificationText('sms', 'Hello', undefined, undefined)).toThrow(AppException);
    expect(() => verificationText('sms', '{{code}} {{name}}', undefined, undefined)).toThrow(/nothing else/);
  });

  it('refuses a template of another channel', () => {
    const t = { channel: 'email' as const, body: '{{code}}', subject: null };
    expect(() => verificationText('sms', undefined, t, 'x')).toThrow(/is for email/);
  });

  it('masks the code in the kept text', () => {
    expect(maskedText('Code {{code}}, again {{code}}')).toBe('Code ******, again ******');
  });
});
