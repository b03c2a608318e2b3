import { randomBytes } from 'node:crypto';

/** Names and settings of a suite's state; nothing here loads the app. */

export const MYSQL_ROOT = 'mysql://root@127.0.0.1:3306';

/** A unique name per suite: its own three databases and its own Bull prefix, so suites run in parallel. */
export function uniqueName(): string {
  return `bmt_${process.pid}_${randomBytes(3).toString('hex')}`;
}

export function testEnv(name: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: `${MYSQL_ROOT}/${name}`,
    QUEUE_PREFIX: name,
    RUN_WORKERS: 'false',
    APP_ENV: 'test',
    LOG_LEVEL: 'silent',
    // Suites send bursts with one key (money: 200 at once); rate limits are tested with keys of their own.
    RATE_LIMIT_DEFAULT: '100000/1',
    // Every suite calls from 127.0.0.1 and many send bad keys or wrong passwords on purpose; the
    // authentication throttles are tested by suites that set these low.
    AUTH_FAILURES_PER_ADDRESS: '100000/1',
    AUTH_FAILURES_PER_ADDRESS_AND_KEY: '100000/1',
    AUTH_PASSWORD_FAILURES_PER_KEY: '100000/1',
    AUTH_PASSWORD_FAILURES_PER_ACCOUNT: '100000/1',
    PASSWORD_CHECK_CONCURRENCY: '64',
    PASSWORD_CHECK_QUEUE_PER_ACCOUNT: '1000',
    // Suites break a dependency and ask at once; the reuse of answers is tested on its own.
    HEALTH_DETAILED_CACHE_MS: '0',
    THROTTLE_REFUSAL_DELAY_MS: '0',
    // 429 rows are summarised per key and window; a short window lets suites see them soon.
    REQUEST_LOG_REFUSAL_WINDOW_SECONDS: '1',
    // No SMPP listener on the fixed default port; the SMPP server's suites give it a free one.
    SMPP_SERVER_PORT: '0',
    // The CLI runs in the test's own process: a prune there must not lower the suite's priority.
    RETENTION_NICE: '0',
    ...overrides,
  };
}
