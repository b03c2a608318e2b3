import { describe, expect, it } from 'vitest';
import { queryCalls } from './query-calls.js';

/**
 * Every statement lives in a *.store.ts of the module that owns its table; services hold rules.
 * Outside the stores only what is about the database itself may query it.
 */
const EXCEPTIONS: Record<string, string> = {
  'database/migration-lock.ts': 'the advisory lock that serialises migrations',
  'database/named-lock.ts':
    'the named lock (GET_LOCK) of prunes and partition changes, on a connection of its own',
  'database/database-setup.ts': 'creating the databases before any table exists',
  'database/data-sources.ts': 'the session settings of each new connection',
  'modules/health/dependency.indicators.ts': 'the database health probe (SELECT 1)',
};

/**
 * Files that still query the database outside a store, with how many calls each: to be moved
 * into their modules' stores. The list only shrinks: a file that drops a call must be updated
 * here, a file not listed may not start.
 */
const NOT_YET_IN_STORES: Record<string, number> = {};

const calls = queryCalls();
const outside = [...calls]
  .filter(([file]) => !file.endsWith('.store.ts') && !file.startsWith('database/migrations/'))
  .filter(([file]) => !(file in EXCEPTIONS));

describe('SQL in stores', () => {
  it('finds the query calls of the stores', () => {
    expect(calls.get('modules/messages/message.store.ts')).toBeGreaterThan(10);
  });

  it('makes no query call outside a store but the listed exceptions and files not yet moved', () => {
    const fresh = outside
      .filter(([file, n]) => n > (NOT_YET_IN_STORES[file] ?? 0))
      .map(([file, n]) => `${file}: ${n} query call(s); move them into its module's *.store.ts`);
    expect(fresh, fresh.join('\n')).toEqual([]);
  });

  it('keeps the not-yet-moved list exact, so it only shrinks', () => {
    const now = Object.fromEntries(outside);
    const stale = Object.entries(NOT_YET_IN_STORES)
      .filter(([file, n]) => (now[file] ?? 0) !== n)
      .map(([file, n]) => `${file}: listed ${n}, now ${now[file] ?? 0}`);
    expect(stale, stale.join('\n')).toEqual([]);
  });
});
