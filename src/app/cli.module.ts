import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../config/config.js';
import { ConfigModule } from '../config/config.module.js';
import { ExistingDatabaseModule } from '../database/existing-database.module.js';
import { CLI_GROUPS } from './cli-groups.js';
import { MAIN_ENTITIES } from './entities.js';

/**
 * The admin CLI: thin commands over the account, key and balance services.
 * Databases only: no Redis, no queues, no HTTP, so it runs where only MySQL is reachable. It
 * never creates or migrates a database except through `db migrate`.
 */
@Module({})
export class CliModule {
  /**
   * With `group` (the first word of a command line), that group's commands and features alone;
   * without, or for a word that names no group (commander then answers with the groups), all.
   */
  static async forRoot(config: AppConfig, group?: string): Promise<DynamicModule> {
    const names = group && Object.hasOwn(CLI_GROUPS, group) ? [group] : Object.keys(CLI_GROUPS);
    const groups = await Promise.all([...new Set(names.map((n) => CLI_GROUPS[n]))].map((load) => load()));
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        ExistingDatabaseModule.forRoot(MAIN_ENTITIES),
        ...new Set(groups.flatMap((g) => g.imports)),
      ],
      providers: [...new Set(groups.flatMap((g) => g.providers))],
    };
  }
}
