import { parseOneOf } from '../../platform/cli/parsers.js';

/** The channels an account is priced and charged on, and every message is sent over. */
export const CHANNELS = ['sms', 'email', 'chat'] as const;
export type Channel = (typeof CHANNELS)[number];

/** A --channel option of the admin CLI. */
export function parseChannel(value: string): Channel {
  return parseOneOf(value, CHANNELS);
}
