import { isEmail } from 'class-validator';
import { hasLoneSurrogate } from './text.js';

export type RecipientCheck =
  { ok: true; value: string } | { ok: false; reason: 'INVALID_NUMBER' | 'INVALID_EMAIL' };

const INVALID_NUMBER: RecipientCheck = { ok: false, reason: 'INVALID_NUMBER' };
const INVALID_EMAIL: RecipientCheck = { ok: false, reason: 'INVALID_EMAIL' };

// Separators people type or paste when writing numbers by hand; \s also catches tabs and no-break spaces.
const PHONE_SEPARATORS = /[\s\-.()]/g;
// 15 is the E.164 maximum; the floor of 8 rejects truncated input. A leading 0 is a national trunk prefix,
// meaning the country code is missing and the number cannot be routed internationally.
const E164_DIGITS = /^[1-9][0-9]{7,14}$/;

const MAX_EMAIL_LENGTH = 254; // RFC 5321 path limit minus the angle brackets
// A quoted local part may legally hold almost anything, but a CR or LF in an address ends up in
// an SMTP command or a header line (injection); no real mailbox needs any control character.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

// Spelled out rather than relying on validator.js defaults, so an upgrade cannot quietly widen what is accepted.
// UTF-8 local parts stay allowed so this agrees with a plain @IsEmail() on request DTOs.
const EMAIL_OPTIONS = {
  allow_display_name: false,
  require_display_name: false,
  require_tld: true,
  allow_ip_domain: false,
  allow_utf8_local_part: true,
  ignore_max_length: false,
};

/** Reduces a phone number to bare international digits, without `+` or `00`. */
export function normalisePhone(raw: string): RecipientCheck {
  // Callers may hand over values from untyped input (JSON bodies, file uploads), so the type is not a guarantee.
  if (typeof raw !== 'string') return INVALID_NUMBER;
  let digits = raw.replace(PHONE_SEPARATORS, '');
  if (digits.startsWith('+')) digits = digits.slice(1);
  else if (digits.startsWith('00')) digits = digits.slice(2);
  return E164_DIGITS.test(digits) ? { ok: true, value: digits } : INVALID_NUMBER;
}

// A national number: one trunk 0, then what would be a number's digits, and no country code.
const NATIONAL_FORM = /^0[1-9][0-9]{6,13}$/;

/**
 * Why a number was refused, in words, where the reason code alone leaves the writer guessing:
 * a number in its national form (0971234567) lacks its country code. Undefined otherwise.
 */
export function invalidNumberHint(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !NATIONAL_FORM.test(raw.replace(PHONE_SEPARATORS, ''))) return undefined;
  return 'a national number without its country code: write it in international form, country code first and no leading 0 (260971234567, not 0971234567)';
}

/** A refused number's reason as a refusal's detail says it: the code, and the hint when there is one. */
export function invalidNumberMessage(raw: unknown): string {
  const hint = invalidNumberHint(raw);
  return hint ? `INVALID_NUMBER: ${hint}` : 'INVALID_NUMBER';
}

/** Validates an address and lower-cases its domain, which is case-insensitive; the local part may not be. */
export function normaliseEmail(raw: string): RecipientCheck {
  if (typeof raw !== 'string') return INVALID_EMAIL;
  const email = raw.trim();
  // An unpaired surrogate is never part of an address, and isEmail throws (URIError) on one.
  if (
    email.length > MAX_EMAIL_LENGTH ||
    CONTROL.test(email) ||
    hasLoneSurrogate(email) ||
    !isEmail(email, EMAIL_OPTIONS)
  )
    return INVALID_EMAIL;
  // A quoted local part may itself contain '@', so the domain starts after the last one.
  const at = email.lastIndexOf('@');
  return { ok: true, value: email.slice(0, at + 1) + email.slice(at + 1).toLowerCase() };
}
