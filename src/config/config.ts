import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DURATION, EnvSchema } from './env.schema.js';
import { redisConnection, type RedisConnection } from './redis-connection.js';

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
  /** Templates one account may keep per side (live, test). */
  templatesPerAccount: number;
  /** An export whose client has taken nothing for this long is stopped and its slot freed. */
  exportStallMs: number;
  redisUrl: string;
  /** Every Redis connection is built from this (src/platform/redis/redis-options.ts). */
  redis: RedisConnection;
  queuePrefix: string;
  runWorkers: boolean;
  workerConcurrency: number;
  concurrency: { sms: number; email: number; chat: number; callbacks: number };
  smppTps: number;
  smppWindow: number;
  smppResponseTimeoutMs: number;
  smppLateResponseWaitMs: number;
  smppReceiptIdFormat: 'auto' | 'hex' | 'decimal' | 'string';
  smppUnmatchedReceiptTtlMs: number;
  queueLockMs: number;
  dispatchSlice: number;
  sweepIntervalMs: number;
  sweepMinAgeMs: number;
  /** A request enqueued and unchanged for this long, with messages still waiting, has its jobs checked and lost ones requeued. */
  sweepStrandedAfterMs: number;
  /** A SENT message without a receipt for this long ends EXPIRED, reason NO_RECEIPT. */
  receiptWaitMs: number;
  /** Seconds a message may wait for hand-over when the send names no validity_period. */
  defaultValidityPeriod: number;
  /** How often each worker looks in MySQL for scheduled messages that are due. */
  schedulePollMs: number;
  callbackTimeoutMs: number;
  callbackBackoffBaseMs: number;
  callbackHttpsOnly: boolean;
  /** The API's address as the world reaches it (no trailing slash); e-mail unsubscribe links are built on it. */
  publicBaseUrl: string | null;
  /** Callbacks in flight to one target (scheme, host and port) per worker process. */
  callbackTargetConcurrency: number;
  /** How long a target that keeps failing has its callbacks parked before one is tried again. */
  callbackCircuitOpenMs: number;
  transports: { sms: string; email: string; chat: string };
  smppUrl?: string;
  smtpUrl?: string;
  smtp: SmtpConfig;
  chatApiUrl?: string;
  chatApiToken?: string;
  sandboxDeliveryDelayMs: number;
  callbackAllowPrivateNetworks: boolean;
  maxRecipients: number;
  /** Test keys' traffic: quotas, its own dispatch queue, callbacks to failing targets. */
  testTraffic: TestTrafficConfig;
  /** A HELP or START auto-reply goes to one sender at most once in this long, per account and side. */
  autoReplyRepeatAfterMs: number;
  trustProxy?: string;
  bodyLimit: string;
  logLevel: string;
  /** Human-readable logs (pino-pretty) instead of JSON lines: LOG_PRETTY, else APP_ENV=development. */
  logPretty: boolean;
  /** When set, GET /metrics wants `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** When set, the queue dashboard is served at /admin/queues, behind this token. */
  adminToken?: string;
  /** Worker processes only: serve /metrics on this port (the API serves it on PORT). */
  metricsPort?: number;
  shutdownGraceMs: number;
  /** How long start-up waits for MySQL (and Redis) to answer before giving up. */
  startupWaitSeconds: number;
  defaultRateLimit: RateLimit;
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
  /** Password hashes verified at once by this process; more answer 429 at once. */
  passwordCheckConcurrency: number;
  /** How long a verified username/password is remembered for its key (0: never). */
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
  /** Largest body on the XML endpoint (BODY_LIMIT applies to the JSON send endpoints). */
  xmlBodyLimit: string;
  maxHeaderSize: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxRequestsPerSocket: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** A DI token: inject with `@Inject(APP_CONFIG) config: AppConfig`. */
export const APP_CONFIG = Symbol('APP_CONFIG');

function parseMysqlUrl(url: string): DatabaseConfig {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 3306,
    username: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
    database: u.pathname.replace(/^\//, ''),
  };
}

function siblingUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "72h" → 259200000; the schema has checked the form. */
function durationMs(text: string): number {
  const [, n, unit] = DURATION.exec(text)!;
  return Number(n) * UNIT_MS[unit];
}

let packageVersion: string | undefined;
function readVersion(): string {
  if (packageVersion) return packageVersion;
  // The compiled file lives one level deeper (dist/src/config) than the source (src/config).
  for (const rel of ['../../package.json', '../../../package.json']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(url)) {
      packageVersion = (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
      return packageVersion;
    }
  }
  return '0.0.0';
}

function parseRate(text: string): RateLimit {
  const [limit, windowSeconds] = text.split('/').map(Number);
  return { limit, windowSeconds };
}

let dotenvLoaded = false;
let dotenvPath: string | undefined;

/** The package root: the compiled file is one level deeper (dist/src/config) than the source. */
function packageRoot(): string | undefined {
  for (const rel of ['../../', '../../../']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(new URL('package.json', url))) return fileURLToPath(url);
  }
  return undefined;
}

/**
 * Reads one `.env` once: the current directory's, else the package root's, so the CLI sees
 * the same settings from any directory. Variables already set in the environment win.
 */
export function loadDotenv(): void {
  if (dotenvLoaded) return;
  dotenvLoaded = true;
  const root = packageRoot();
  const candidates = [resolve('.env'), ...(root ? [join(root, '.env')] : [])];
  dotenvPath = candidates.find((f) => existsSync(f));
  if (dotenvPath) process.loadEnvFile(dotenvPath);
}

/** The `.env` file that was read, if any. */
export function dotenvFile(): string | undefined {
  return dotenvPath;
}

/**
 * Validates the environment (plus overrides, used by tests) and returns the configuration.
 * Throws ConfigError naming every bad variable.
 */
export function loadConfig(overrides: Record<string, string | undefined> = {}): AppConfig {
  loadDotenv();
  const raw: Record<string, string | undefined> = { ...process.env, ...overrides };
  const env = plainToInstance(EnvSchema, raw, { excludeExtraneousValues: false });
  const errors = validateSync(env, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map(
        (e) =>
          `${e.property}=${JSON.stringify(raw[e.property] ?? '')}: ${Object.values(e.constraints ?? {}).join('; ')}`,
      ),
    );
  }
  const databaseUrl = env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/bulk_messaging';
  const database = parseMysqlUrl(databaseUrl);
  const [limit, windowSeconds] = (env.RATE_LIMIT_DEFAULT ?? '100/1').split('/').map(Number);
  let smtpCa: string | undefined;
  if (env.SMTP_TLS_CA) {
    try {
      smtpCa = readFileSync(env.SMTP_TLS_CA, 'utf8');
    } catch (err) {
      throw new ConfigError([
        `SMTP_TLS_CA=${JSON.stringify(env.SMTP_TLS_CA)}: cannot be read (${(err as Error).message})`,
      ]);
    }
    if (!smtpCa.includes('-----BEGIN CERTIFICATE-----')) {
      throw new ConfigError([`SMTP_TLS_CA=${JSON.stringify(env.SMTP_TLS_CA)}: holds no PEM certificate`]);
    }
  }
  const headersTimeoutMs = env.HTTP_HEADERS_TIMEOUT_MS ?? 20_000;
  const requestTimeoutMs = env.HTTP_REQUEST_TIMEOUT_MS ?? 60_000;
  // Node refuses a header timeout above the request timeout; say so with the variables' names.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError([
      `HTTP_HEADERS_TIMEOUT_MS=${headersTimeoutMs}: must not be above HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    ]);
  }
  const receiptWaitMs = durationMs(env.RECEIPT_WAIT ?? '72h');
  if (receiptWaitMs < 1000)
    throw new ConfigError([`RECEIPT_WAIT=${JSON.stringify(env.RECEIPT_WAIT)}: must be at least 1s`]);
  const schedule = env.RETENTION_SCHEDULE ?? 'off';
  const retentionScheduleMs = schedule === 'off' ? undefined : durationMs(schedule);
  if (retentionScheduleMs !== undefined && retentionScheduleMs < 60_000)
    throw new ConfigError([`RETENTION_SCHEDULE=${JSON.stringify(schedule)}: must be off or at least 1m`]);
  return {
    port: env.PORT ?? 3000,
    env: env.APP_ENV ?? 'development',
    serviceName: 'bulk-messaging',
    version: readVersion(),
    database,
    logDatabase: parseMysqlUrl(env.LOG_DATABASE_URL ?? siblingUrl(databaseUrl, `${database.database}_log`)),
    notificationDatabase: parseMysqlUrl(
      env.NOTIFICATION_DATABASE_URL ?? siblingUrl(databaseUrl, `${database.database}_notification`),
    ),
    ...(env.DATABASE_READ_URL ? { readDatabase: parseMysqlUrl(env.DATABASE_READ_URL) } : {}),
    dbPoolSize: env.DB_POOL_SIZE ?? 20,
    exportsPerAccount: env.EXPORTS_PER_ACCOUNT ?? 1,
    templatesPerAccount: env.TEMPLATES_PER_ACCOUNT ?? 200,
    exportStallMs: (env.EXPORT_STALL_SECONDS ?? 30) * 1000,
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redis: redisConnection(env, (problems) => new ConfigError(problems)),
    queuePrefix: env.QUEUE_PREFIX ?? 'bull',
    runWorkers: env.RUN_WORKERS ?? true,
    workerConcurrency: env.WORKER_CONCURRENCY ?? 8,
    concurrency: {
      sms: env.SMS_CONCURRENCY ?? env.WORKER_CONCURRENCY ?? 16,
      email: env.EMAIL_CONCURRENCY ?? env.WORKER_CONCURRENCY ?? 8,
      chat: env.CHAT_CONCURRENCY ?? env.WORKER_CONCURRENCY ?? 8,
      callbacks: env.CALLBACK_CONCURRENCY ?? 16,
    },
    smppTps: env.SMPP_TPS ?? 0,
    smppWindow: env.SMPP_WINDOW ?? 100,
    smppResponseTimeoutMs: env.SMPP_RESPONSE_TIMEOUT_MS ?? 10_000,
    smppLateResponseWaitMs: env.SMPP_LATE_RESPONSE_WAIT_MS ?? 300_000,
    smppReceiptIdFormat: env.SMPP_RECEIPT_ID_FORMAT ?? 'auto',
    smppUnmatchedReceiptTtlMs: env.SMPP_UNMATCHED_RECEIPT_TTL_MS ?? 86_400_000,
    queueLockMs: env.QUEUE_LOCK_MS ?? 30_000,
    dispatchSlice: env.DISPATCH_SLICE ?? 100,
    sweepIntervalMs: env.SWEEP_INTERVAL_MS ?? 15_000,
    sweepMinAgeMs: env.SWEEP_MIN_AGE_MS ?? 10_000,
    sweepStrandedAfterMs: env.SWEEP_STRANDED_AFTER_MS ?? 60_000,
    receiptWaitMs,
    defaultValidityPeriod: env.DEFAULT_VALIDITY_PERIOD ?? 172_800,
    schedulePollMs: env.SCHEDULE_POLL_MS ?? 250,
    callbackTimeoutMs: env.CALLBACK_TIMEOUT_MS ?? 5000,
    callbackBackoffBaseMs: env.CALLBACK_BACKOFF_BASE_MS ?? 10_000,
    callbackHttpsOnly: env.CALLBACK_HTTPS_ONLY ?? false,
    publicBaseUrl: env.PUBLIC_BASE_URL ? env.PUBLIC_BASE_URL.replace(/\/+$/, '') : null,
    callbackTargetConcurrency: env.CALLBACK_TARGET_CONCURRENCY ?? 4,
    callbackCircuitOpenMs: env.CALLBACK_CIRCUIT_OPEN_MS ?? 30_000,
    transports: {
      sms: env.SMS_TRANSPORT ?? 'sandbox',
      email: env.EMAIL_TRANSPORT ?? 'sandbox',
      chat: env.CHAT_TRANSPORT ?? 'sandbox',
    },
    smppUrl: env.SMPP_URL,
    smtpUrl: env.SMTP_URL,
    smtp: {
      tls: (env.SMTP_TLS ?? 'required') as SmtpConfig['tls'],
      ca: smtpCa,
      caPath: env.SMTP_TLS_CA,
      rejectUnauthorized: env.SMTP_TLS_REJECT_UNAUTHORIZED ?? true,
      poolIdleMs: env.SMTP_POOL_IDLE_MS ?? 60_000,
      messageIdDomain: env.EMAIL_MESSAGE_ID_DOMAIN?.toLowerCase(),
      ehloName: env.SMTP_EHLO_NAME?.toLowerCase(),
    },
    chatApiUrl: env.CHAT_API_URL,
    chatApiToken: env.CHAT_API_TOKEN,
    sandboxDeliveryDelayMs: env.SANDBOX_DELIVERY_DELAY_MS ?? 1000,
    callbackAllowPrivateNetworks: env.CALLBACK_ALLOW_PRIVATE_NETWORKS ?? false,
    maxRecipients: env.MAX_RECIPIENTS ?? 10_000,
    testTraffic: {
      maxRecipients: env.TEST_MAX_RECIPIENTS ?? 1000,
      dailyMessages: env.TEST_DAILY_MESSAGES ?? 10_000,
      concurrency: env.TEST_CONCURRENCY ?? 2,
      callbackFailures: parseRate(env.TEST_CALLBACK_FAILURES ?? '50/3600'),
    },
    autoReplyRepeatAfterMs: durationMs(env.AUTO_REPLY_REPEAT_AFTER ?? '24h'),
    trustProxy: env.TRUST_PROXY,
    bodyLimit: env.BODY_LIMIT ?? '4mb',
    logLevel: env.LOG_LEVEL ?? 'info',
    logPretty: env.LOG_PRETTY ?? (env.APP_ENV ?? 'development') === 'development',
    metricsToken: env.METRICS_TOKEN,
    adminToken: env.ADMIN_TOKEN,
    metricsPort: env.METRICS_PORT,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS ?? 25_000,
    startupWaitSeconds: env.STARTUP_WAIT_SECONDS ?? 30,
    defaultRateLimit: { limit, windowSeconds },
    requestLogRetentionDays: env.REQUEST_LOG_RETENTION_DAYS ?? 30,
    retention: {
      messageDays: env.MESSAGE_RETENTION_DAYS ?? 90,
      archiveDir: env.ARCHIVE_DIR,
      scheduleMs: retentionScheduleMs,
      batch: env.RETENTION_BATCH ?? 1000,
      pauseMs: env.RETENTION_PAUSE_MS ?? 50,
    },
    requestLogRefusalWindowSeconds: env.REQUEST_LOG_REFUSAL_WINDOW_SECONDS ?? 10,
    authThrottle: {
      passwordFailuresPerKey: parseRate(env.AUTH_PASSWORD_FAILURES_PER_KEY ?? '10/300'),
      passwordFailuresPerAccount: parseRate(env.AUTH_PASSWORD_FAILURES_PER_ACCOUNT ?? '30/300'),
      failuresPerAddress: parseRate(env.AUTH_FAILURES_PER_ADDRESS ?? '50/60'),
      failuresPerAddressAndKey: parseRate(env.AUTH_FAILURES_PER_ADDRESS_AND_KEY ?? '10/60'),
      passwordCheckConcurrency: env.PASSWORD_CHECK_CONCURRENCY ?? 2,
      passwordCacheMs: (env.PASSWORD_CACHE_SECONDS ?? 300) * 1000,
      refusalDelayMs: env.THROTTLE_REFUSAL_DELAY_MS ?? 500,
    },
    http: {
      corsOrigins: (env.CORS_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean)
        .map((o) => (o === '*' ? o : new URL(o).origin)),
      maxJsonDepth: env.MAX_JSON_DEPTH ?? 32,
      xmlAcceptFormContentTypes: env.XML_ACCEPT_FORM_CONTENT_TYPES ?? false,
      xmlBodyLimit: env.XML_BODY_LIMIT ?? '1mb',
      maxHeaderSize: env.HTTP_MAX_HEADER_SIZE ?? 16_384,
      headersTimeoutMs,
      requestTimeoutMs,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? 5000,
      maxRequestsPerSocket: env.HTTP_MAX_REQUESTS_PER_SOCKET ?? 1000,
    },
  };
}
