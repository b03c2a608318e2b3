import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { configureApp } from './common/http/configure-app.js';
import { loadConfigOrExit } from './config/load-or-exit.js';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), { bodyParser: false });
  configureApp(app, config);
  await app.listen(config.port);
  console.log(`bulk-messaging listening on :${config.port} (env ${config.env}, workers ${config.runWorkers ? 'on' : 'off'})`);
}

bootstrap().catch((err: unknown) => {
  console.error('bulk-messaging failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
