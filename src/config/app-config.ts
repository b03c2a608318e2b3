import type { RedisConnection } from './redis-connection.js';
import type { BodyLimits } from './body-limits.js';

export type Channel = 'sms' | 'email' | 'chat';

export interface DatabaseConfig {
  host: string;
  port: number;
  username: string;
  password: string;
  database: string;
}

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

/** The validated configuration: the only place the rest of the code learns about the environment. */
export interface AppConfig {
  port: number;
  env: string;
  serviceName: string;
  version: string;
  database: DatabaseConfig;
  logDatabase: DatabaseConfig;
  notificationDatabase: DatabaseConfig;
  /** DATABASE_READ_URL: where lag-tolerant reads go; unset, they use the main database. */
  readDatabase?: DatabaseConfig;
  dbPoolSize: number;
  /** Exports one account may run at once in a process (besides the process's quarter of the pool). */
  exportsPerAccount: number;
  /** A preview counts as one request against the key's rate limit per this many recipients (started). */
  previewRecipientsPerRequest: number;
  /** Templates one account may keep per side (live, test). */
  templatesPerAccount: number;
  /** An export whose client has taken nothing for this long is stopped and its slot freed. */
  exportStallMs: number;
  redisUrl: string;
  /** Every Redis connection is built from this (src/platform/redis/redis-options.ts). */
  redis: RedisConnection;
  queuePrefix: string;
  runWorkers: boolean;
  /** Jobs in parallel per worker: each channel's queue, the callbacks, and the priority queue. */
  concurrency: { sms: number; email: number; chat: number; callbacks: number; priority: number };
  smppTps: number;
  smppWindow: number;
  smppResponseTimeoutMs: number;
  smppLateResponseWaitMs: number;
  smppReceiptIdFormat: 'auto' | 'hex' | 'decimal' | 'string';
  smppUnmatchedReceiptTtlMs: number;
  /** The SMPP server for customers; port 0: off. TLS is served when both PEM files were read. */
  smppServer: {
    port: number;
    tls: { port: number; cert: string; key: string } | null;
    idleMs: number;
    window: number;
  };
  queueLockMs: number;
  dispatchSlice: number;
  sweepIntervalMs: number;
  sweepMinAgeMs: number;
  /** A request enqueued and unchanged for this long, with messages still waiting, has its jobs checked and lost ones requeued. */
  sweepStrandedAfterMs: number;
  /** A SENT message without a receipt for this long ends EXPIRED, reason NO_RECEIPT. */
  receiptWaitMs: number;
  /** A deliver_sm owed to a customer's SMPP receiver is dropped after this many hours unsent. */
  smppDlrTtlHours: number;
  /** Seconds a message may wait for hand-over when the send names no validity_period. */
  defaultValidityPeriod: number;
  /** How often each worker looks in MySQL for scheduled messages that are due. */
  schedulePollMs: number;
  /** How often workers look for due chat-to-SMS fallbacks. */
  fallbackPollMs: number;
  callbackTimeoutMs: number;
  callbackBackoffBaseMs: number;
  callbackHttpsOnly: boolean;
  /** The API's address as the world reaches it (no trailing slash); e-mail unsubscribe links are built on it. */
  publicBaseUrl: string | null;
  /** Callbacks in flight to one target (scheme, host and port) per worker process. */
  callbackTargetConcurrency: number;
  /** How long a target that keeps failing has its callbacks parked before one is tried again. */
  callbackCircuitOpenMs: number;
  /** An event held by an open circuit longer than this (from its first hold) is dropped and counted. */
  callbackMaxHoldMs: number;
  transports: { sms: string; email: string; chat: string };
  smppUrl?: string;
  smtpUrl?: string;
  smtp: SmtpConfig;
  chatApiUrl?: string;
  chatApiToken?: string;
  sandboxDeliveryDelayMs: number;
  callbackAllowPrivateNetworks: boolean;
  /** Short links: the address codes are appended to (null: shorten_links refused), and their lifetime. */
  shortLinks: { baseUrl: string | null; retentionDays: number };
  maxRecipients: number;
  /** Test keys' traffic: quotas, its own dispatch queue, callbacks to failing targets. */
  testTraffic: TestTrafficConfig;
  /** A HELP or START auto-reply goes to one sender at most once in this long, per account and side. */
  autoReplyRepeatAfterMs: number;
  trustProxy?: string;
  logLevel: string;
  /** Human-readable logs (pino-pretty) instead of JSON lines: LOG_PRETTY, else APP_ENV=development. */
  logPretty: boolean;
  /** When set, GET /metrics wants `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** How long a /health/detailed answer is reused (0: never). */
  healthDetailedCacheMs: number;
  /** When set, the queue dashboard is served at /admin/queues, behind this token. */
  adminToken?: string;
  /** SERVER_SECRET: the key of every keyed digest the service stores (never the secret itself). */
  serverSecret: string;
  /** Worker processes only: serve /metrics on this port (the API serves it on PORT). */
  metricsPort?: number;
  shutdownGraceMs: number;
  /** How long start-up waits for MySQL (and Redis) to answer before giving up. */
  startupWaitSeconds: number;
  defaultRateLimit: RateLimit;
  /** A request counts against its key's rate limit once per started this many bytes of body. */
  rateLimitBodyBytes: number;
  requestLogRetentionDays: number;
  /** Message retention, archives and erasure (modules/retention). */
  retention: RetentionConfig;
  /** Repeated 429s of one key within this many seconds are logged as one row with a count. */
  requestLogRefusalWindowSeconds: number;
  /** Failed-authentication limits and the password-check bounds (modules/api-keys/auth/auth-throttle.ts). */
  authThrottle: AuthThrottleConfig;
  /** HTTP hardening (platform/http/security.ts). */
  http: HttpLimitsConfig;
}

export interface RetentionConfig {
  /** Final messages whose last change is older than this many days are removed by a prune. */
  messageDays: number;
  /** Where removed rows are archived first (compressed NDJSON); unset: no archive. */
  archiveDir?: string;
  /** How often a worker prunes on its own; undefined: never (the CLI only). */
  scheduleMs?: number;
  /** Messages removed per batch, and the pause between batches that leaves room for sends. */
  batch: number;
  pauseMs: number;
  /** A pause lasts at least this many times as long as the batch before it took, while others write. */
  pauseFactor: number;
  /** The same while the database is quiet: fewer than `quietWrites` rows written per second by others. */
  quietPauseFactor: number;
  quietWrites: number;
}

export interface SmtpConfig {
  /** required: STARTTLS (or smtps://) or no delivery; opportunistic: STARTTLS when offered; off: never. */
  tls: 'required' | 'opportunistic' | 'off';
  /** PEM contents of SMTP_TLS_CA, trusted beside the system's CAs. */
  ca?: string;
  caPath?: string;
  rejectUnauthorized: boolean;
  /** A pooled connection idle this long is closed with QUIT; 0 keeps it open. */
  poolIdleMs: number;
  /** Right-hand side of the Message-ID; unset: the sender address's domain. */
  messageIdDomain?: string;
  /** The name we greet with (EHLO); unset: the machine's host name when qualified, else [127.0.0.1]. */
  ehloName?: string;
}

export interface TestTrafficConfig {
  /** Recipients per request made with a test key (beyond: 400 TOO_MANY_RECIPIENTS). */
  maxRecipients: number;
  /** Test messages accepted per account and UTC day (beyond: 429 RATE_LIMITED). */
  dailyMessages: number;
  /** Test dispatch jobs in flight per worker process, on the test queue. */
  concurrency: number;
  /** Test messages handed to the test transport per second per worker process. */
  dispatchRate: number;
  /** Failed callback attempts of test messages per account and target in a window; then its test events are dropped. */
  callbackFailures: RateLimit;
}

export interface AuthThrottleConfig {
  /** Wrong username/password answers allowed per API key in a window, then 429 for a window. */
  passwordFailuresPerKey: RateLimit;
  /** The same across all the keys of one account. */
  passwordFailuresPerAccount: RateLimit;
  /** Failed keys (unknown, revoked, expired, ambiguous) per client address. */
  failuresPerAddress: RateLimit;
  /** Failed keys per client address and presented key. */
  failuresPerAddressAndKey: RateLimit;
  /** Password hashes verified at once by this process (one per account); more wait their account's turn. */
  passwordCheckConcurrency: number;
  /** Password checks of one account running or waiting in this process; one more is 429. */
  passwordCheckQueuePerAccount: number;
  /** How long a verified username/password is remembered for its account (0: never). */
  passwordCacheMs: number;
  /** How long a throttle's 429 (key rate limit, failed-authentication limits) is held before it is sent. */
  refusalDelayMs: number;
}

export interface HttpLimitsConfig {
  /** Browser origins allowed by CORS; empty = CORS closed, ['*'] = any origin. */
  corsOrigins: string[];
  /** Deepest nesting of a JSON body (objects and arrays); deeper is 400 MALFORMED_BODY. */
  maxJsonDepth: number;
  /** Accept form content types (text/plain, urlencoded, multipart) on the XML endpoint. */
  xmlAcceptFormContentTypes: boolean;
  /** Largest body of each kind of route, in bytes (src/config/body-limits.ts). */
  bodyLimits: BodyLimits;
  /** The same for test keys' requests, sized for TEST_MAX_RECIPIENTS. */
  testBodyLimits: BodyLimits;
  maxHeaderSize: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxRequestsPerSocket: number;
}
