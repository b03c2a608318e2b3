import { DURATION, bool, int, text } from './define.js';

const jobs = (queue: string) => `jobs of the ${queue} queue in parallel per worker process`;

/** What happens after acceptance: queues, workers, sweeps, expiry, callbacks. */
export const deliverySettings = {
  WORKER_CONCURRENCY: int({
    min: 1,
    max: 256,
    example: '8',
    doc: "jobs in parallel on every channel's queue, unless that queue's own setting is given",
  }),
  SMS_CONCURRENCY: int({ min: 1, max: 256, default: 16, fallback: 'WORKER_CONCURRENCY', doc: jobs('SMS') }),
  EMAIL_CONCURRENCY: int({
    min: 1,
    max: 256,
    default: 8,
    fallback: 'WORKER_CONCURRENCY',
    doc: jobs('e-mail'),
  }),
  CHAT_CONCURRENCY: int({ min: 1, max: 256, default: 8, fallback: 'WORKER_CONCURRENCY', doc: jobs('chat') }),
  PRIORITY_CONCURRENCY: int({
    min: 1,
    max: 256,
    default: 4,
    doc: "jobs of the `priority` queue (live high-priority requests, every channel) in parallel per worker process, beside every channel's own",
  }),
  CALLBACK_CONCURRENCY: int({ min: 1, max: 256, default: 16, doc: jobs('callback') }),
  QUEUE_LOCK_MS: int({
    min: 1000,
    max: 600_000,
    default: 30_000,
    doc: 'a job whose worker died (no lock renewal) returns to the queue within this long (measured: 7 s with `10000`)',
  }),
  DISPATCH_SLICE: int({
    min: 1,
    max: 1000,
    default: 100,
    doc: 'messages handed to a transport between two state records: a worker killed mid-job repeats at most one slice',
  }),
  SWEEP_INTERVAL_MS: int({
    min: 100,
    max: 3_600_000,
    default: 15_000,
    doc: 'recovery sweep: how often it runs',
  }),
  SWEEP_MIN_AGE_MS: int({
    min: 0,
    max: 3_600_000,
    default: 10_000,
    doc: 'recovery sweep: how old an unqueued request must be before it is queued again',
  }),
  SWEEP_STRANDED_AFTER_MS: int({
    min: 1000,
    max: 86_400_000,
    default: 60_000,
    doc: 'a request enqueued, with messages still waiting and none changed for this long, has its jobs looked up; lost ones are queued again (see Delivery guarantees)',
  }),
  RECEIPT_WAIT: text({
    pattern: DURATION,
    message: 'must be a duration such as 72h, 30m, 45s or 500ms (at least 1s)',
    default: '72h',
    doc: 'a `SENT` message with no delivery report for this long ends `EXPIRED`, reason `NO_RECEIPT` (`ms`, `s`, `m`, `h` or `d`; at least `1s`)',
  }),
  DEFAULT_VALIDITY_PERIOD: int({
    min: 60,
    max: 604_800,
    default: 172_800,
    doc: 'seconds a message may wait to be handed to a provider when the send names no `validity_period` (60–604800), counted from the later of `send_at` and acceptance; then it ends `EXPIRED`, `VALIDITY_PERIOD_ELAPSED`, refunded (see Scheduling)',
  }),
  SCHEDULE_POLL_MS: int({
    min: 50,
    max: 60_000,
    default: 250,
    doc: 'how often each worker asks MySQL for scheduled messages that are due; a request due sooner wakes it at its due time (see Scheduling)',
  }),
  FALLBACK_POLL_MS: int({
    min: 50,
    max: 60_000,
    default: 1000,
    doc: 'how often each worker asks MySQL for chat messages whose SMS fallback is due; one due sooner wakes it at its due time (see Fallback)',
  }),
  CALLBACK_ALLOW_PRIVATE_NETWORKS: bool({
    default: false,
    doc: 'allow callbacks to loopback/private addresses',
  }),
  CALLBACK_HTTPS_ONLY: bool({
    default: false,
    doc: 'refuse plain-http callback targets: at request time (400 `INVALID_CALLBACK_URL`) and at delivery',
  }),
  CALLBACK_TIMEOUT_MS: int({ min: 100, max: 60_000, default: 5000, doc: 'callback answer timeout' }),
  CALLBACK_BACKOFF_BASE_MS: int({
    min: 10,
    max: 3_600_000,
    default: 10_000,
    doc: 'first callback retry delay (doubling; 9 retries span 64–106 min)',
  }),
  CALLBACK_TARGET_CONCURRENCY: int({
    min: 1,
    max: 256,
    default: 4,
    doc: 'callbacks in flight to one slow or failing target (scheme, host, port) per worker process; a target answering quickly is not limited',
  }),
  CALLBACK_CIRCUIT_OPEN_MS: int({
    min: 100,
    max: 3_600_000,
    default: 30_000,
    doc: "after 5 failures in a row, a target's callbacks are not sent for this long; then one probe",
  }),
  CALLBACK_MAX_HOLD_MS: int({
    min: 1000,
    max: 2_592_000_000,
    default: 86_400_000,
    doc: 'longest a callback event is held by an open circuit, from its first hold; then it is dropped and counted (bulk_callback_attempts_total{outcome="hold_expired"})',
  }),
  PUBLIC_BASE_URL: text({
    pattern: /^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/,
    message: 'must be an http(s) URL without query or fragment, such as https://api.acme.example',
    example: 'https://api.acme.example',
    doc: "the API's address as the world reaches it; set, every e-mail carries `List-Unsubscribe` and `List-Unsubscribe-Post` (one-click, RFC 8058) pointing at `<PUBLIC_BASE_URL>/unsubscribe/<token>`",
  }),
  SHORT_LINK_BASE_URL: text({
    pattern: /^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*[^\s?#/])?$/,
    message:
      'must be an http(s) URL without query, fragment or trailing slash, such as https://acme.example/l',
    example: 'https://api.acme.example/l',
    doc: "where short links point: `shorten_links` turns each link of a text into `<SHORT_LINK_BASE_URL>/<code>`; the API answers them under `/l/`, so the service's own address followed by `/l` works as it is (see [Short links](../api/links.md)); unset: `shorten_links` is refused",
  }),
  AUTO_REPLY_REPEAT_AFTER: text({
    pattern: DURATION,
    message: 'must be a duration such as 24h, 30m or 45s',
    default: '24h',
    doc: 'a `STOP` confirmation, `HELP` or `START` auto-reply goes to one sender at most once in this long, per account (see Inbound and opt-out)',
  }),
  SMPP_DLR_TTL_HOURS: int({
    min: 1,
    max: 720,
    default: 72,
    doc: "a receipt or inbound SMS owed to a customer's SMPP bind waits this long for a receiver of its credential to bind and accept it; then it is dropped and counted (`bulk_smpp_receipts_expired_total`)",
  }),
};
