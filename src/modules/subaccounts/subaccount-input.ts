import { AppException } from '../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../platform/errors/error-codes.js';
import { CHANNELS, type Channel } from '../messages/channel.js';
import { money } from '../../platform/money/money.js';

/** The checks of the sub-account routes' bodies, every problem reported in one answer. */

const USERNAME = /^[A-Za-z0-9._@-]{3,64}$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function fail(problems: ErrorDetail[], message: string): never {
  throw AppException.validation(problems, message);
}

export function checkNewSubaccount(raw: { username?: unknown; name?: unknown }): {
  username: string;
  name: string | null;
} {
  const problems: ErrorDetail[] = [];
  const username = typeof raw.username === 'string' ? raw.username.trim() : '';
  if (!USERNAME.test(username))
    problems.push({ field: 'username', message: '3-64 characters: letters, digits, . _ @ -' });
  let name: string | null = null;
  if (raw.name !== undefined && raw.name !== null) {
    if (typeof raw.name !== 'string' || !raw.name.trim() || raw.name.trim().length > 100)
      problems.push({ field: 'name', message: '1-100 characters' });
    else if (CONTROL.test(raw.name))
      problems.push({ field: 'name', message: 'must not contain control characters' });
    else name = raw.name.trim();
  }
  if (problems.length) fail(problems, 'The sub-account is not valid.');
  return { username, name };
}

/** A signed amount with at most 6 decimal places, not zero: > 0 parent → sub-account, < 0 back. */
export function checkTransfer(raw: { channel?: unknown; amount?: unknown }): {
  channel: Channel;
  amount: string;
} {
  const problems: ErrorDetail[] = [];
  const channel = raw.channel as Channel;
  if (!CHANNELS.includes(channel))
    problems.push({ field: 'channel', message: `one of ${CHANNELS.join(', ')}` });
  const text =
    typeof raw.amount === 'number' || typeof raw.amount === 'string' ? String(raw.amount).trim() : '';
  const m = /^(-?)(\d{1,14}(?:\.\d{1,6})?)$/.exec(text);
  let amount = '';
  if (!m || !/[1-9]/.test(m[2]!))
    problems.push({
      field: 'amount',
      message: 'a decimal other than zero with at most 6 decimal places (> 0 to the sub-account, < 0 back)',
    });
  else amount = `${m[1]}${money(m[2]!)}`;
  if (problems.length) fail(problems, 'The transfer is not valid.');
  return { channel, amount };
}

export interface SubaccountKeyInput {
  name: string;
  mode: 'live' | 'test';
  dailyLimit: string | null;
  rateLimit: { limit: number; windowSeconds: number } | null;
}

export function checkKey(raw: {
  name?: unknown;
  mode?: unknown;
  daily_limit?: unknown;
  rate_limit?: unknown;
}): SubaccountKeyInput {
  const problems: ErrorDetail[] = [];
  const name = typeof raw.name === 'string' ? raw.name.trim() : '';
  if (!name || name.length > 100) problems.push({ field: 'name', message: '1-100 characters' });
  else if (CONTROL.test(name))
    problems.push({ field: 'name', message: 'must not contain control characters' });
  const mode = raw.mode ?? 'live';
  if (mode !== 'live' && mode !== 'test') problems.push({ field: 'mode', message: 'live or test' });
  let dailyLimit: string | null = null;
  if (raw.daily_limit !== undefined && raw.daily_limit !== null) {
    const text =
      typeof raw.daily_limit === 'number' || typeof raw.daily_limit === 'string'
        ? String(raw.daily_limit)
        : '';
    if (!/^\d{1,14}(\.\d{1,6})?$/.test(text.trim()))
      problems.push({
        field: 'daily_limit',
        message: 'a decimal of zero or more with at most 6 decimal places',
      });
    else dailyLimit = money(text.trim());
  }
  let rateLimit: SubaccountKeyInput['rateLimit'] = null;
  if (raw.rate_limit !== undefined && raw.rate_limit !== null) {
    const m =
      typeof raw.rate_limit === 'string' ? /^(\d{1,9})\/(\d{1,6})$/.exec(raw.rate_limit.trim()) : null;
    const limit = Number(m?.[1]);
    const windowSeconds = Number(m?.[2]);
    if (!m || limit < 1 || windowSeconds < 1 || windowSeconds > 86_400)
      problems.push({
        field: 'rate_limit',
        message: 'N/SECONDS with N >= 1 and 1 <= SECONDS <= 86400, such as 100/1',
      });
    else rateLimit = { limit, windowSeconds };
  }
  if (problems.length) fail(problems, 'The key is not valid.');
  return { name, mode: mode as 'live' | 'test', dailyLimit, rateLimit };
}
