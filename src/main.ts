import 'reflect-metadata';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { configureApp } from './common/http/configure-app.js';
import { forceExitAfterGrace } from './common/logging/shutdown-timer.js';
import { loadConfigOrExit } from './config/load-or-exit.js';
import { HttpDrain } from './modules/health/http-drain.js';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  // Before configureApp, whose own call is then a no-op: exit with process.exit once the
  // hooks are done, so the 'exit' handlers (pino-pretty's transport) flush the last lines.
  app.enableShutdownHooks([], { useProcessExit: true });
  configureApp(app, config);

  const drain = app.get(HttpDrain);
  const logger = new NestLogger('Shutdown');
  // Runs right after Nest's own signal listener has started the shutdown, before any hook:
  // readiness turns 503 and the listener closes at once; the hooks then wait for requests in
  // flight (HttpDrain), let workers finish their jobs (DispatchWorker) and close connections.
  forceExitAfterGrace(config.shutdownGraceMs, (signal) => {
    logger.log(`${signal} received: draining HTTP, then stopping workers (grace ${config.shutdownGraceMs} ms)`);
    drain.begin();
  });

  await app.listen(config.port);
  new NestLogger('Bootstrap').log(
    `bulk-messaging listening on :${config.port} (env ${config.env}, workers ${config.runWorkers ? 'on' : 'off'})`,
  );
}

bootstrap().catch((err: unknown) => {
  NestLogger.flush();
  console.error('bulk-messaging failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
