import type { RedisConnection } from './redis-connection.js';
import type { BodyLimits } from './body-limits.js';
import type { DerivedConfig } from './settings/derive.js';

export type { RateLimit } from './settings/convert.js';

export type Channel = 'sms' | 'email' | 'chat';

export interface DatabaseConfig {
  host: string;
  port: number;
  username: string;
  password: string;
  database: string;
}

/**
 * What config.ts makes from several settings, files or the host; everything else in the
 * configuration comes from a setting's declaration (its `path` and `to`, src/config/settings).
 */
interface ComposedConfig {
  serviceName: string;
  version: string;
  database: DatabaseConfig;
  logDatabase: DatabaseConfig;
  notificationDatabase: DatabaseConfig;
  /** DATABASE_READ_URL: where lag-tolerant reads go; unset, they use the main database. */
  readDatabase?: DatabaseConfig;
  /** Every Redis connection is built from this (src/platform/redis/redis-options.ts). */
  redis: RedisConnection;
  /** The SMPP server's TLS listener: both PEM files read at start, or null. */
  smppServer: { tls: { port: number; cert: string; key: string } | null };
  /** PEM contents of SMTP_TLS_CA, trusted beside the system's CAs. */
  smtp: { ca?: string };
  /** Human-readable logs (pino-pretty) instead of JSON lines: LOG_PRETTY, else APP_ENV=development. */
  logPretty: boolean;
  /** SERVER_SECRET: the key of every keyed digest the service stores (never the secret itself). */
  serverSecret: string;
  http: {
    /** Browser origins allowed by CORS; empty = CORS closed, ['*'] = any origin. */
    corsOrigins: string[];
    /** Largest body of each kind of route, in bytes (src/config/body-limits.ts). */
    bodyLimits: BodyLimits;
    /** The same for test keys' requests, sized for TEST_MAX_RECIPIENTS. */
    testBodyLimits: BodyLimits;
  };
}

/** The validated configuration: the only place the rest of the code learns about the environment. */
export type AppConfig = DerivedConfig & ComposedConfig;

export type RetentionConfig = AppConfig['retention'];
export type SmtpConfig = AppConfig['smtp'];
export type TestTrafficConfig = AppConfig['testTraffic'];
export type AuthThrottleConfig = AppConfig['authThrottle'];
export type HttpLimitsConfig = AppConfig['http'];
