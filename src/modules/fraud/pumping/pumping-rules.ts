/** The pure rules of the pumping guard, apart from its state (pumping-state.ts). */

/** How long a block holds, and the window of the per-prefix count. */
export const PUMPING_WINDOW_MS = 3600_000;
/** How many of a country's latest decided verifications its conversion is judged on. */
export const CONVERSION_SAMPLE = 100;

export type BlockKind = 'prefix' | 'country';
/** What the guard stands in front of: verification codes, or inbound auto-replies. */
export type GuardedSource = 'verification' | 'auto-reply';

/** Numbers sharing all but their last 3 digits: the block a pumping range is usually bought in. */
export function prefixOf(number: string): string {
  return number.slice(0, -3);
}

/** A country's latest decided verifications: how many, and how many were approved. */
export interface Conversion {
  decided: number;
  approved: number;
}

/**
 * Whether a country's conversion is low enough to block it: only once a full sample has been
 * decided, so a new account's first few unanswered codes never block a country.
 */
export function conversionTooLow(c: Conversion, minConversion: number): boolean {
  return minConversion > 0 && c.decided >= CONVERSION_SAMPLE && c.approved / c.decided < minConversion;
}

/** The field a block is kept under in the account's blocks hash. */
export function blockField(kind: BlockKind, value: string): string {
  return `${kind}:${value}`;
}
