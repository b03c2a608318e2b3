/**
 * The API process: loaded by main.ts once V8's garbage-collection settings hold
 * (platform/startup/gc-settings.ts).
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app/app.module.js';
import { configureApp } from './app/configure-app.js';
import { nestLoggerOver } from './platform/logging/process-logger.js';
import { forceExitAfterGrace } from './platform/logging/shutdown-timer.js';
import { adoptApp, runProcess } from './platform/startup/run-process.js';
import { HttpDrain } from './modules/health/http-drain.service.js';
import { AccountsService } from './modules/accounts/accounts.service.js';
import { listeningLines } from './platform/startup/listening-lines.js';
import { ShapedExpressAdapter } from './platform/http/message-shape.js';

runProcess('bulk-messaging', async (config, log, logs) => {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config),
    new ShapedExpressAdapter(),
    {
      bodyParser: false,
      // Not buffered: a start-up that waits for MySQL says so while it waits.
      logger: nestLoggerOver(log),
      abortOnError: false,
    },
  );
  // Before configureApp, whose own enableShutdownHooks is then a no-op.
  adoptApp(app, logs);
  configureApp(app, config);

  const drain = app.get(HttpDrain);
  const logger = new NestLogger('Shutdown');
  // Runs right after Nest's own signal listener has started the shutdown, before any hook:
  // readiness turns 503 and the listener closes at once; the hooks then wait for requests in
  // flight (HttpDrain), let workers finish their jobs (DispatchWorker) and close connections.
  forceExitAfterGrace(config.shutdownGraceMs, (signal) => {
    logger.log(
      `${signal} received: draining HTTP, then stopping workers (grace ${config.shutdownGraceMs} ms)`,
    );
    drain.begin();
  });

  await app.listen(config.port);
  const lines = listeningLines({
    name: 'bulk-messaging',
    address: app.getHttpServer().address() as AddressInfo,
    env: config.env,
    runWorkers: config.runWorkers,
    callbackAllowPrivateNetworks: config.callbackAllowPrivateNetworks,
    // Only a hint: a database that cannot say leaves the line out rather than stop the start.
    hasAccounts: await app
      .get(AccountsService)
      .any()
      .catch(() => undefined),
  });
  for (const line of lines) log[line.level]({ context: 'Bootstrap' }, line.msg);
});
