import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { MAIN_ENTITIES } from '../../src/app/entities.js';
import { loadConfig, type AppConfig } from '../../src/config/config.js';
import { ConfigModule } from '../../src/config/config.module.js';
import { DatabaseModule } from '../../src/database/database.module.js';
import { dropTestState, prepareDatabases, testEnv, uniqueName } from './test-app.js';

export interface ServiceContext {
  /** The suite's main database; its log and notification databases are `${name}_log` and `${name}_notification`. */
  name: string;
  ref: TestingModule;
  /** The same module, under the name e2e specs use, so factories and probes take either. */
  app: TestingModule;
  config: AppConfig;
  ds: DataSource;
  get: TestingModule['get'];
  close: () => Promise<void>;
}

/**
 * Services without HTTP, for the middle tier: a Nest context of the given modules on the real
 * MySQL databases of their own (copied from the run's migrated template) and, where a module
 * uses queues, the real Redis under their own prefix.
 */
export async function startServices(
  imports: Array<Type | DynamicModule>,
  providers: Provider[] = [],
  overrides: Record<string, string> = {},
): Promise<ServiceContext> {
  const name = uniqueName();
  const config = loadConfig(testEnv(name, overrides));
  await prepareDatabases(config);
  const ref = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot(MAIN_ENTITIES), ...imports],
    providers,
  })
    .setLogger({ log() {}, error() {}, warn() {}, debug() {}, verbose() {} })
    .compile();
  await ref.init();
  return {
    name,
    ref,
    app: ref,
    config,
    ds: ref.get(DataSource),
    get: ref.get.bind(ref) as TestingModule['get'],
    close: async () => {
      await ref.close();
      await dropTestState(name, config.redisUrl);
    },
  };
}
