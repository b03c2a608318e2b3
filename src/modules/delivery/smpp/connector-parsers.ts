import { UsageError } from '../../../platform/cli/cli-errors.js';
import { parseSmppUrl } from './smpp-pdu.js';

/** Option parsers of the connectors, routes and prices commands (exit 2 on a malformed value). */

export function parseConnectorName(v: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(v))
    throw new UsageError('Expected 1-64 characters: letters, digits, . _ - (not starting with . _ -).');
  return v;
}

export function parseConnectorUrl(v: string): string {
  try {
    const e = parseSmppUrl(v);
    if (!e.systemId) throw new Error('no system_id');
  } catch {
    throw new UsageError('Expected smpp://system_id:password@host:port.');
  }
  return v;
}

function integer(v: string, min: number, max: number, what: string): number {
  if (!/^\d{1,9}$/.test(v) || Number(v) < min || Number(v) > max)
    throw new UsageError(`Expected ${what}: a whole number from ${min} to ${max}.`);
  return Number(v);
}

export const parseTps = (v: string) => integer(v, 0, 100_000, 'submit_sm per second (0 = no cap)');
export const parseWindow = (v: string) => integer(v, 1, 10_000, 'submit_sm awaiting their response at once');
export const parseRoutePriority = (v: string) => integer(v, 1, 1000, 'a priority (1 is tried first)');

export function parseBindMode(v: string): 'transceiver' | 'transmitter' {
  if (v !== 'transceiver' && v !== 'transmitter')
    throw new UsageError('Expected transceiver or transmitter.');
  return v;
}

export function parseSystemType(v: string): string {
  if (v.length > 12 || !/^[\x20-\x7e]*$/.test(v))
    throw new UsageError('Expected at most 12 ASCII characters.');
  return v;
}

/** A destination prefix: digits of an international number, a leading + allowed and dropped. */
export function parsePrefix(v: string): string {
  const m = /^\+?(\d{1,16})$/.exec(v.trim());
  if (!m)
    throw new UsageError('Expected the leading digits of international numbers, such as 26097 or +26097.');
  return m[1];
}
