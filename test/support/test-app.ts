import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DynamicModule, Type } from '@nestjs/common';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app/app.module.js';
import { configureApp } from '../../src/app/configure-app.js';
import { loadConfig, type AppConfig } from '../../src/config/config.js';
import { inject } from 'vitest';
import { copyTemplate } from './db-template.js';
import { dropLocalState } from './local-state.js';
import { testEnv, uniqueName } from './test-env.js';
import { ShapedExpressAdapter } from '../../src/platform/http/message-shape.js';

export { MYSQL_ROOT, testEnv, uniqueName } from './test-env.js';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  name: string;
  http: () => ReturnType<typeof request>;
  ds: DataSource;
  queue: (name: string) => Queue;
  close: () => Promise<void>;
}

export interface TestAppOptions {
  /** Extra modules beside the app (e.g. a probe controller). */
  imports?: Array<Type | DynamicModule>;
  /** Provider overrides, applied to the testing module before it compiles. */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /** Use the app's own logger (nestjs-pino) as Nest's logger, as api.ts does. */
  appLogger?: boolean;
}

export async function startTestApp(
  overrides: Record<string, string> = {},
  name = uniqueName(),
  options: TestAppOptions = {},
): Promise<TestApp> {
  const config = loadConfig(testEnv(name, overrides));
  await prepareDatabases(config);
  const builder = Test.createTestingModule({
    imports: [AppModule.forRoot(config), ...(options.imports ?? [])],
  });
  const moduleRef = await (options.override ? options.override(builder) : builder).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(
    new ShapedExpressAdapter(),
    options.appLogger ? { bodyParser: false, bufferLogs: true } : { bodyParser: false, logger: ['error'] },
  );
  if (options.appLogger) app.useLogger(app.get(Logger));
  configureApp(app, config);
  await app.init();
  const server = app.getHttpServer();
  return {
    app,
    config,
    name,
    http: () => request(server),
    ds: app.get(DataSource),
    queue: (q: string) => app.get<Queue>(getQueueToken(q)),
    close: async () => {
      await app.close();
      await dropTestState(name, config.redisUrl);
    },
  };
}

/** The app with its workers running, sending SMS over SMPP to `smppUrl`. */
export function startSmppApp(
  smppUrl: string,
  overrides: Record<string, string> = {},
  name = uniqueName(),
  options: TestAppOptions = {},
): Promise<TestApp> {
  return startTestApp(
    { RUN_WORKERS: 'true', SMS_TRANSPORT: 'smpp', SMPP_URL: smppUrl, ...overrides },
    name,
    options,
  );
}

/**
 * The app with its workers running, sending e-mail over SMTP to `smtpUrl` (plain: the loopback
 * peers speak no TLS; STARTTLS is tested against Exim) and chat over HTTP to `chatUrl`.
 */
export function startMailChatApp(
  smtpUrl: string,
  chatUrl: string,
  overrides: Record<string, string> = {},
  name = uniqueName(),
  options: TestAppOptions = {},
): Promise<TestApp> {
  return startTestApp(
    {
      RUN_WORKERS: 'true',
      EMAIL_TRANSPORT: 'smtp',
      SMTP_URL: smtpUrl,
      SMTP_TLS: 'off',
      CHAT_TRANSPORT: 'http',
      CHAT_API_URL: chatUrl,
      ...overrides,
    },
    name,
    options,
  );
}

/**
 * Copies the run's migrated template into the suite's databases that do not exist yet, so the
 * app finds them migrated instead of migrating three databases per suite.
 */
export async function prepareDatabases(config: AppConfig): Promise<void> {
  await copyTemplate(inject('dbTemplate'), [
    config.database,
    config.logDatabase,
    config.notificationDatabase,
  ]);
}

export async function dropTestState(name: string, redisUrl = 'redis://127.0.0.1:6379'): Promise<void> {
  await dropLocalState(name, redisUrl);
}

/** All message ids queued on a channel's queue (jobs carry chunks of ids). */
export async function queuedMessageIds(queue: Queue): Promise<string[]> {
  const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'paused']);
  return jobs.flatMap((j) => (j?.data as { messageIds: string[] }).messageIds);
}
