import { MYSQL_URL, MYSQL_URL_MESSAGE, TOKEN, TOKEN_MESSAGE, bool, int, oneOf, text } from './define.js';

const SENTINELS =
  /^\s*(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}\s*(?:,\s*(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}\s*)*$/;
const COMPOSE = 'set by compose.yaml';

/** Where the process listens, the databases and Redis it uses, its logs and its life cycle. */
export const serverSettings = {
  PORT: int({ min: 0, max: 65535, default: 3000, compose: COMPOSE, doc: 'HTTP port' }),
  DATABASE_URL: text({
    pattern: MYSQL_URL,
    message: MYSQL_URL_MESSAGE,
    default: 'mysql://root@127.0.0.1:3306/bulk_messaging',
    compose: COMPOSE,
    doc: 'main database (accounts, keys, messages, ledger)',
  }),
  LOG_DATABASE_URL: text({
    pattern: MYSQL_URL,
    message: MYSQL_URL_MESSAGE,
    defaultText: 'same server, `bulk_messaging_log`',
    example: 'mysql://root@127.0.0.1:3306/bulk_messaging_log',
    compose: COMPOSE,
    doc: 'request logs',
  }),
  NOTIFICATION_DATABASE_URL: text({
    pattern: MYSQL_URL,
    message: MYSQL_URL_MESSAGE,
    defaultText: 'same server, `bulk_messaging_notification`',
    example: 'mysql://root@127.0.0.1:3306/bulk_messaging_notification',
    compose: COMPOSE,
    doc: 'delivery reports, callback attempts',
  }),
  DATABASE_READ_URL: text({
    pattern: MYSQL_URL,
    message: MYSQL_URL_MESSAGE,
    defaultText: 'the main database',
    example: 'mysql://reader:password@replica:3306/bulk_messaging',
    doc: 'search, export and request summaries, which may lag by a moment (a replica or another Galera node); never money, idempotency or state changes',
  }),
  DB_POOL_SIZE: int({ min: 1, max: 200, default: 20, doc: 'MySQL connections per process (main database)' }),
  REDIS_URL: text({
    pattern: /^rediss?:\/\/[^\s]+$/,
    message: 'must look like redis://host:6379',
    default: 'redis://127.0.0.1:6379',
    compose: COMPOSE,
    doc: 'queues and rate limits',
  }),
  REDIS_SENTINELS: text({
    pattern: SENTINELS,
    message: 'must look like host:26379,host:26379',
    example: 'sentinel1:26379,sentinel2:26379,sentinel3:26379',
    doc: 'Redis through Sentinel: `host:port,…` of the sentinels; every Redis connection then follows the primary they name (Running at scale)',
  }),
  REDIS_SENTINEL_NAME: text({
    pattern: /^[A-Za-z0-9._-]{1,64}$/,
    message: 'must be the name the sentinels monitor, such as mymaster',
    example: 'mymaster',
    doc: 'the name the sentinels monitor the primary under; required with `REDIS_SENTINELS`',
  }),
  REDIS_SENTINEL_PASSWORD: text({
    doc: "the sentinels' own password (their `requirepass`), when they have one",
  }),
  REDIS_PASSWORD: text({
    doc: "the Redis servers' password; wins over one in `REDIS_URL` (whose database number also applies with Sentinel)",
  }),
  QUEUE_PREFIX: text({
    pattern: /^[A-Za-z0-9_:-]{1,64}$/,
    message: 'must be letters, digits, _ : or -',
    default: 'bull',
    doc: 'Redis key prefix of the queues',
  }),
  APP_ENV: text({
    pattern: /^[A-Za-z0-9_-]{1,32}$/,
    message: 'must be a short word such as production',
    default: 'development',
    doc: 'shown as `environment` in `/health`',
  }),
  RUN_WORKERS: bool({
    default: true,
    compose: COMPOSE,
    doc: 'also run the dispatch workers inside the API process',
  }),
  SHUTDOWN_GRACE_MS: int({
    min: 1000,
    max: 600_000,
    default: 25_000,
    doc: 'longest a graceful shutdown may take; then the process exits 1, saying so',
  }),
  STARTUP_WAIT_SECONDS: int({
    min: 0,
    max: 3600,
    default: 30,
    doc: 'how long a starting process waits for MySQL to answer, and tries its migrations again after a transient error (a cluster node away for a moment, a lock wait timeout; one warning line per retry, naming the server), then exits 1 with one fatal line; `0` = do not wait. Redis is not waited for: the API accepts sends without it and queues them once it is back',
  }),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    doc: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  }),
  LOG_PRETTY: bool({
    defaultText: '`true` when `APP_ENV=development`',
    example: 'false',
    compose: COMPOSE,
    doc: 'human-readable lines (pino-pretty) instead of JSON',
  }),
  METRICS_TOKEN: text({
    pattern: TOKEN,
    message: TOKEN_MESSAGE,
    emptyIsUnset: true,
    example: 'a-long-random-token',
    doc: 'when set (16+ characters), `/metrics` and `/health/detailed` want `Authorization: Bearer <token>`',
  }),
  HEALTH_DETAILED_CACHE_MS: int({
    min: 0,
    max: 60_000,
    default: 2000,
    doc: 'how long a `/health/detailed` answer is reused: however many ask, its checks run at most once in this long (0 = every request)',
  }),
  ADMIN_TOKEN: text({
    pattern: TOKEN,
    message: TOKEN_MESSAGE,
    emptyIsUnset: true,
    defaultText: 'unset (no dashboard)',
    example: 'another-long-random-token',
    doc: 'when set (16+ characters), the API serves the queue dashboard at `/admin/queues` behind it (see Operations)',
  }),
  METRICS_PORT: int({
    min: 1,
    max: 65535,
    example: '9464',
    compose: COMPOSE,
    doc: "`dist/worker.js` only: serve that worker's `/metrics` and `/health/live` on this port",
  }),
  SMPP_SERVER_PORT: int({
    min: 0,
    max: 65535,
    default: 2775,
    doc: 'the SMPP server for customers (ESMEs) in every API process: its port (`0` turns it off; see [SMPP](../api/smpp.md))',
  }),
  SMPP_SERVER_TLS_PORT: int({
    min: 1,
    max: 65535,
    default: 3550,
    doc: 'the SMPP server over TLS: its port, served when `SMPP_SERVER_TLS_CERT` and `SMPP_SERVER_TLS_KEY` are set',
  }),
  SMPP_SERVER_TLS_CERT: text({
    emptyIsUnset: true,
    example: '/etc/bulk-messaging/smpp.crt',
    defaultText: 'unset (no TLS listener)',
    doc: 'the SMPP server over TLS: a PEM file with the certificate (and its chain)',
  }),
  SMPP_SERVER_TLS_KEY: text({
    emptyIsUnset: true,
    example: '/etc/bulk-messaging/smpp.key',
    defaultText: 'unset (no TLS listener)',
    doc: "the SMPP server over TLS: a PEM file with the certificate's private key",
  }),
  SMPP_SERVER_IDLE_SECONDS: int({
    min: 5,
    max: 86_400,
    default: 300,
    doc: 'the SMPP server unbinds a session that sent nothing (not even `enquire_link`) for this long',
  }),
  SMPP_SERVER_WINDOW: int({
    min: 1,
    max: 10_000,
    default: 100,
    doc: "the SMPP server reads at most this many of a session's PDUs before it has answered them (then it stops reading until it has)",
  }),
};
