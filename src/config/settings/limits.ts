import { RATE, int, text } from './define.js';

/** What one account may do: recipients, quotas of test keys, templates, exports, the default rate limit. */
export const limitSettings = {
  MAX_RECIPIENTS: int({ min: 1, max: 1_000_000, default: 10_000, doc: 'recipients per request' }),
  RATE_LIMIT_DEFAULT: text({
    pattern: /^\d+\/\d+$/,
    message: 'must be N/SECONDS, for example 100/1',
    default: '100/1',
    doc: 'requests per key in a window (N/SECONDS) for keys without a rate limit of their own',
  }),
  TEST_MAX_RECIPIENTS: int({
    min: 1,
    max: 1_000_000,
    default: 1000,
    doc: 'recipients per request made with a test key (see Test keys)',
  }),
  TEST_DAILY_MESSAGES: int({
    min: 0,
    max: 1_000_000_000,
    default: 10_000,
    doc: "test messages per account and UTC day, all its test keys and its sub-accounts' together; beyond, 429 `RATE_LIMITED` (`0` refuses every test send)",
  }),
  TEST_CONCURRENCY: int({
    min: 1,
    max: 256,
    default: 2,
    doc: "jobs of the `test` queue (test keys' requests, every channel) in parallel per worker process",
  }),
  TEST_DISPATCH_RATE: int({
    min: 1,
    max: 100_000,
    default: 500,
    doc: "test messages the test transport takes per second per worker process: a flood of test sends keeps to this pace, and live traffic keeps the worker's and MySQL's time",
  }),
  TEST_CALLBACK_FAILURES: text({
    pattern: RATE,
    message: 'must be N/SECONDS, for example 50/3600',
    default: '50/3600',
    doc: "failed callback attempts of one account's test events to one target in a window (N/SECONDS); then its test events to that target are dropped until the window ends",
  }),
  PREVIEW_RECIPIENTS_PER_REQUEST: int({
    min: 1,
    max: 100_000,
    default: 1000,
    doc: "a preview counts as one request against the key's rate limit per this many recipients it names (started: 2,500 count as 3)",
  }),
  TEMPLATES_PER_ACCOUNT: int({
    min: 1,
    max: 100_000,
    default: 200,
    doc: 'templates one account and its sub-accounts may keep together per side (live, test); one more is 403',
  }),
  EXPORTS_PER_ACCOUNT: int({
    min: 1,
    max: 50,
    default: 1,
    doc: 'message exports one account and its sub-accounts may run at once over the API, across every API process (counted in Redis)',
  }),
  EXPORT_STALL_SECONDS: int({
    min: 1,
    max: 3600,
    default: 30,
    doc: "seconds an export's client may take nothing before the export is stopped",
  }),
  PUMPING_PREFIX_LIMIT: int({
    min: 1,
    max: 100_000,
    default: 10,
    doc: 'verification codes and auto-replies one account may send per hour to numbers sharing all but their last 3 digits; one more blocks that prefix for the account for an hour (429 `SUSPECTED_PUMPING`)',
  }),
  PUMPING_MIN_CONVERSION: text({
    pattern: /^(0(\.\d{1,4})?|1(\.0{1,4})?)$/,
    message: 'must be a fraction from 0 to 1, for example 0.1',
    default: '0.1',
    doc: "the share of an account's last 100 decided verifications to one country that must be approved; under it, that country is blocked for the account for an hour (0 turns the check off)",
  }),
};
