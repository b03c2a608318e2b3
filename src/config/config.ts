import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DURATION } from './settings/define.js';
import { parseSettings } from './settings/index.js';
import type { AppConfig, RateLimit, DatabaseConfig } from './app-config.js';
import { redisConnection } from './redis-connection.js';
import { ConfigError } from './config-error.js';
import { bodyLimitsFor, lowerOf, parseSize } from './body-limits.js';

export { ConfigError };

export type {
  Channel,
  DatabaseConfig,
  RateLimit,
  AppConfig,
  RetentionConfig,
  SmtpConfig,
  TestTrafficConfig,
  AuthThrottleConfig,
  HttpLimitsConfig,
} from './app-config.js';

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
 * SERVER_SECRET where it may be left unset (APP_ENV development or test): public, so a digest
 * keyed with it protects nothing, but every process of a development setup agrees on it.
 */
export const DEVELOPMENT_SERVER_SECRET = 'development-only-server-secret-never-in-production';

/**
 * Validates the environment (plus overrides, used by tests) and returns the configuration.
 * Throws ConfigError naming every bad variable.
 */
export function loadConfig(overrides: Record<string, string | undefined> = {}): AppConfig {
  loadDotenv();
  const parsed = parseSettings({ ...process.env, ...overrides });
  if (parsed.problems) throw new ConfigError(parsed.problems);
  const s = parsed.settings;
  const database = parseMysqlUrl(s.DATABASE_URL);
  let smtpCa: string | undefined;
  if (s.SMTP_TLS_CA) {
    try {
      smtpCa = readFileSync(s.SMTP_TLS_CA, 'utf8');
    } catch (err) {
      throw new ConfigError([
        `SMTP_TLS_CA=${JSON.stringify(s.SMTP_TLS_CA)}: cannot be read (${(err as Error).message})`,
      ]);
    }
    if (!smtpCa.includes('-----BEGIN CERTIFICATE-----')) {
      throw new ConfigError([`SMTP_TLS_CA=${JSON.stringify(s.SMTP_TLS_CA)}: holds no PEM certificate`]);
    }
  }
  const bodyLimits = bodyLimitsFor(
    s.MAX_RECIPIENTS,
    s.BODY_LIMIT === undefined ? undefined : parseSize(s.BODY_LIMIT),
    s.XML_BODY_LIMIT === undefined ? undefined : parseSize(s.XML_BODY_LIMIT),
  );
  const headersTimeoutMs = s.HTTP_HEADERS_TIMEOUT_MS;
  const requestTimeoutMs = s.HTTP_REQUEST_TIMEOUT_MS;
  // Node refuses a header timeout above the request timeout; say so with the variables' names.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError([
      `HTTP_HEADERS_TIMEOUT_MS=${headersTimeoutMs}: must not be above HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    ]);
  }
  const receiptWaitMs = durationMs(s.RECEIPT_WAIT);
  if (receiptWaitMs < 1000)
    throw new ConfigError([`RECEIPT_WAIT=${JSON.stringify(s.RECEIPT_WAIT)}: must be at least 1s`]);
  const schedule = s.RETENTION_SCHEDULE;
  const retentionScheduleMs = schedule === 'off' ? undefined : durationMs(schedule);
  if (retentionScheduleMs !== undefined && retentionScheduleMs < 1000)
    throw new ConfigError([`RETENTION_SCHEDULE=${JSON.stringify(schedule)}: must be off or at least 1s`]);
  return {
    port: s.PORT,
    env: s.APP_ENV,
    serviceName: 'bulk-messaging',
    version: readVersion(),
    database,
    logDatabase: parseMysqlUrl(s.LOG_DATABASE_URL ?? siblingUrl(s.DATABASE_URL, `${database.database}_log`)),
    notificationDatabase: parseMysqlUrl(
      s.NOTIFICATION_DATABASE_URL ?? siblingUrl(s.DATABASE_URL, `${database.database}_notification`),
    ),
    ...(s.DATABASE_READ_URL ? { readDatabase: parseMysqlUrl(s.DATABASE_READ_URL) } : {}),
    dbPoolSize: s.DB_POOL_SIZE,
    exportsPerAccount: s.EXPORTS_PER_ACCOUNT,
    previewRecipientsPerRequest: s.PREVIEW_RECIPIENTS_PER_REQUEST,
    templatesPerAccount: s.TEMPLATES_PER_ACCOUNT,
    exportStallMs: s.EXPORT_STALL_SECONDS * 1000,
    redisUrl: s.REDIS_URL,
    redis: redisConnection(s, (problems) => new ConfigError(problems)),
    queuePrefix: s.QUEUE_PREFIX,
    runWorkers: s.RUN_WORKERS,
    concurrency: {
      sms: s.SMS_CONCURRENCY,
      email: s.EMAIL_CONCURRENCY,
      chat: s.CHAT_CONCURRENCY,
      callbacks: s.CALLBACK_CONCURRENCY,
      priority: s.PRIORITY_CONCURRENCY,
    },
    smppTps: s.SMPP_TPS,
    smppWindow: s.SMPP_WINDOW,
    smppResponseTimeoutMs: s.SMPP_RESPONSE_TIMEOUT_MS,
    smppLateResponseWaitMs: s.SMPP_LATE_RESPONSE_WAIT_MS,
    smppReceiptIdFormat: s.SMPP_RECEIPT_ID_FORMAT,
    smppUnmatchedReceiptTtlMs: s.SMPP_UNMATCHED_RECEIPT_TTL_MS,
    smppServer: {
      port: s.SMPP_SERVER_PORT,
      tls: smppServerTls(s.SMPP_SERVER_TLS_PORT, s.SMPP_SERVER_TLS_CERT, s.SMPP_SERVER_TLS_KEY),
      idleMs: s.SMPP_SERVER_IDLE_SECONDS * 1000,
      window: s.SMPP_SERVER_WINDOW,
    },
    queueLockMs: s.QUEUE_LOCK_MS,
    dispatchSlice: s.DISPATCH_SLICE,
    sweepIntervalMs: s.SWEEP_INTERVAL_MS,
    sweepMinAgeMs: s.SWEEP_MIN_AGE_MS,
    sweepStrandedAfterMs: s.SWEEP_STRANDED_AFTER_MS,
    receiptWaitMs,
    smppDlrTtlHours: s.SMPP_DLR_TTL_HOURS,
    defaultValidityPeriod: s.DEFAULT_VALIDITY_PERIOD,
    schedulePollMs: s.SCHEDULE_POLL_MS,
    fallbackPollMs: s.FALLBACK_POLL_MS,
    callbackTimeoutMs: s.CALLBACK_TIMEOUT_MS,
    callbackBackoffBaseMs: s.CALLBACK_BACKOFF_BASE_MS,
    callbackHttpsOnly: s.CALLBACK_HTTPS_ONLY,
    publicBaseUrl: s.PUBLIC_BASE_URL ? s.PUBLIC_BASE_URL.replace(/\/+$/, '') : null,
    callbackTargetConcurrency: s.CALLBACK_TARGET_CONCURRENCY,
    callbackCircuitOpenMs: s.CALLBACK_CIRCUIT_OPEN_MS,
    callbackMaxHoldMs: s.CALLBACK_MAX_HOLD_MS,
    transports: { sms: s.SMS_TRANSPORT, email: s.EMAIL_TRANSPORT, chat: s.CHAT_TRANSPORT },
    smppUrl: s.SMPP_URL,
    smtpUrl: s.SMTP_URL,
    smtp: {
      tls: s.SMTP_TLS,
      ca: smtpCa,
      caPath: s.SMTP_TLS_CA,
      rejectUnauthorized: s.SMTP_TLS_REJECT_UNAUTHORIZED,
      poolIdleMs: s.SMTP_POOL_IDLE_MS,
      messageIdDomain: s.EMAIL_MESSAGE_ID_DOMAIN?.toLowerCase(),
      ehloName: s.SMTP_EHLO_NAME?.toLowerCase(),
    },
    chatApiUrl: s.CHAT_API_URL,
    chatApiToken: s.CHAT_API_TOKEN,
    sandboxDeliveryDelayMs: s.SANDBOX_DELIVERY_DELAY_MS,
    callbackAllowPrivateNetworks: s.CALLBACK_ALLOW_PRIVATE_NETWORKS,
    shortLinks: { baseUrl: s.SHORT_LINK_BASE_URL ?? null, retentionDays: s.LINK_RETENTION_DAYS },
    maxRecipients: s.MAX_RECIPIENTS,
    testTraffic: {
      maxRecipients: s.TEST_MAX_RECIPIENTS,
      dailyMessages: s.TEST_DAILY_MESSAGES,
      concurrency: s.TEST_CONCURRENCY,
      dispatchRate: s.TEST_DISPATCH_RATE,
      callbackFailures: parseRate(s.TEST_CALLBACK_FAILURES),
    },
    autoReplyRepeatAfterMs: durationMs(s.AUTO_REPLY_REPEAT_AFTER),
    trustProxy: s.TRUST_PROXY,
    logLevel: s.LOG_LEVEL,
    logPretty: s.LOG_PRETTY ?? s.APP_ENV === 'development',
    metricsToken: s.METRICS_TOKEN,
    healthDetailedCacheMs: s.HEALTH_DETAILED_CACHE_MS,
    adminToken: s.ADMIN_TOKEN,
    serverSecret: s.SERVER_SECRET ?? DEVELOPMENT_SERVER_SECRET,
    metricsPort: s.METRICS_PORT,
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    startupWaitSeconds: s.STARTUP_WAIT_SECONDS,
    defaultRateLimit: parseRate(s.RATE_LIMIT_DEFAULT),
    rateLimitBodyBytes: s.RATE_LIMIT_BODY_KB * 1024,
    requestLogRetentionDays: s.REQUEST_LOG_RETENTION_DAYS,
    retention: {
      messageDays: s.MESSAGE_RETENTION_DAYS,
      archiveDir: s.ARCHIVE_DIR,
      scheduleMs: retentionScheduleMs,
      batch: s.RETENTION_BATCH,
      pauseMs: s.RETENTION_PAUSE_MS,
      pauseFactor: s.RETENTION_PAUSE_FACTOR,
      quietPauseFactor: s.RETENTION_QUIET_PAUSE_FACTOR,
      quietWrites: s.RETENTION_QUIET_WRITES,
    },
    requestLogRefusalWindowSeconds: s.REQUEST_LOG_REFUSAL_WINDOW_SECONDS,
    authThrottle: {
      passwordFailuresPerKey: parseRate(s.AUTH_PASSWORD_FAILURES_PER_KEY),
      passwordFailuresPerAccount: parseRate(s.AUTH_PASSWORD_FAILURES_PER_ACCOUNT),
      failuresPerAddress: parseRate(s.AUTH_FAILURES_PER_ADDRESS),
      failuresPerAddressAndKey: parseRate(s.AUTH_FAILURES_PER_ADDRESS_AND_KEY),
      passwordCheckConcurrency: s.PASSWORD_CHECK_CONCURRENCY,
      passwordCheckQueuePerAccount: s.PASSWORD_CHECK_QUEUE_PER_ACCOUNT,
      passwordCacheMs: s.PASSWORD_CACHE_SECONDS * 1000,
      refusalDelayMs: s.THROTTLE_REFUSAL_DELAY_MS,
    },
    http: {
      corsOrigins: (s.CORS_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean)
        .map((o) => (o === '*' ? o : new URL(o).origin)),
      maxJsonDepth: s.MAX_JSON_DEPTH,
      xmlAcceptFormContentTypes: s.XML_ACCEPT_FORM_CONTENT_TYPES,
      bodyLimits,
      testBodyLimits: lowerOf(bodyLimits, bodyLimitsFor(Math.min(s.MAX_RECIPIENTS, s.TEST_MAX_RECIPIENTS))),
      maxHeaderSize: s.HTTP_MAX_HEADER_SIZE,
      headersTimeoutMs,
      requestTimeoutMs,
      keepAliveTimeoutMs: s.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxRequestsPerSocket: s.HTTP_MAX_REQUESTS_PER_SOCKET,
    },
  };
}

/** The SMPP server's TLS listener: both PEM files read at start, or none (one without the other is a mistake). */
function smppServerTls(port: number, certPath?: string, keyPath?: string): AppConfig['smppServer']['tls'] {
  if (!certPath && !keyPath) return null;
  if (!certPath || !keyPath)
    throw new ConfigError([
      `${certPath ? 'SMPP_SERVER_TLS_KEY' : 'SMPP_SERVER_TLS_CERT'}: must be set too when ${certPath ? 'SMPP_SERVER_TLS_CERT' : 'SMPP_SERVER_TLS_KEY'} is`,
    ]);
  const read = (name: string, path: string) => {
    try {
      const pem = readFileSync(path, 'utf8');
      if (!pem.includes('-----BEGIN')) throw new Error('holds no PEM block');
      return pem;
    } catch (err) {
      throw new ConfigError([`${name}=${JSON.stringify(path)}: cannot be used (${(err as Error).message})`]);
    }
  };
  return { port, cert: read('SMPP_SERVER_TLS_CERT', certPath), key: read('SMPP_SERVER_TLS_KEY', keyPath) };
}
