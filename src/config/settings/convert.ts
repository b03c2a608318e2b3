import { ConfigError } from '../config-error.js';
import { DURATION } from './define.js';

/** How a setting's value becomes the configuration's: units and forms the settings declare with `to`. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "72h" → 259200000; the schema has checked the form. */
export function durationMs(text: string): number {
  const [, n, unit] = DURATION.exec(text)!;
  return Number(n) * UNIT_MS[unit];
}

/** A duration that must be at least a second long, named in the error when it is not. */
export function atLeastOneSecond(name: string): (text: string) => number {
  return (text) => {
    const ms = durationMs(text);
    if (ms < 1000) throw new ConfigError([`${name}=${JSON.stringify(text)}: must be at least 1s`]);
    return ms;
  };
}

/** `off`, or a duration of at least a second: how often the worker prunes on its own. */
export function retentionSchedule(text: string): number | undefined {
  return text === 'off' ? undefined : atLeastOneSecond('RETENTION_SCHEDULE')(text);
}

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

/** "100/60" → 100 events per 60 seconds; the schema has checked the form. */
export function parseRate(text: string): RateLimit {
  const [limit, windowSeconds] = text.split('/').map(Number);
  return { limit, windowSeconds };
}

export const secondsToMs = (seconds: number): number => seconds * 1000;
export const kbToBytes = (kb: number): number => kb * 1024;
export const lowerCase = (text: string): string => text.toLowerCase();
export const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '');
