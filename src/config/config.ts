import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseSettings } from './settings/index.js';
import { derive } from './settings/derive.js';
import type { AppConfig, DatabaseConfig } from './app-config.js';
import { redisConnection } from './redis-connection.js';
import { ConfigError } from './config-error.js';
import { bodyLimitsFor, lowerOf, parseSize } from './body-limits.js';
import { loadDotenv, readVersion } from './package-files.js';

export { ConfigError };
export { dotenvFile, loadDotenv } from './package-files.js';

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
  // Node refuses a header timeout above the request timeout; say so with the variables' names.
  if (s.HTTP_HEADERS_TIMEOUT_MS > s.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError([
      `HTTP_HEADERS_TIMEOUT_MS=${s.HTTP_HEADERS_TIMEOUT_MS}: must not be above HTTP_REQUEST_TIMEOUT_MS (${s.HTTP_REQUEST_TIMEOUT_MS})`,
    ]);
  }
  const derived = derive(s);
  return {
    ...derived,
    serviceName: 'bulk-messaging',
    version: readVersion(),
    database,
    logDatabase: parseMysqlUrl(s.LOG_DATABASE_URL ?? siblingUrl(s.DATABASE_URL, `${database.database}_log`)),
    notificationDatabase: parseMysqlUrl(
      s.NOTIFICATION_DATABASE_URL ?? siblingUrl(s.DATABASE_URL, `${database.database}_notification`),
    ),
    ...(s.DATABASE_READ_URL ? { readDatabase: parseMysqlUrl(s.DATABASE_READ_URL) } : {}),
    redis: redisConnection(s, (problems) => new ConfigError(problems)),
    smppServer: {
      ...derived.smppServer,
      tls: smppServerTls(s.SMPP_SERVER_TLS_PORT, s.SMPP_SERVER_TLS_CERT, s.SMPP_SERVER_TLS_KEY),
    },
    smtp: { ...derived.smtp, ca: smtpCa },
    logPretty: s.LOG_PRETTY ?? s.APP_ENV === 'development',
    serverSecret: s.SERVER_SECRET ?? DEVELOPMENT_SERVER_SECRET,
    http: {
      ...derived.http,
      corsOrigins: (s.CORS_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean)
        .map((o) => (o === '*' ? o : new URL(o).origin)),
      bodyLimits,
      testBodyLimits: lowerOf(bodyLimits, bodyLimitsFor(Math.min(s.MAX_RECIPIENTS, s.TEST_MAX_RECIPIENTS))),
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
