import { Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { retryWriteConflicts } from './conflict-retry.js';
import type { Entities } from './data-sources.js';
import { databaseImports } from './typeorm-imports.js';

/**
 * The three data sources of DatabaseModule, left closed: the admin CLI never creates or
 * migrates a database. It checks them first and initialises them itself (see cli.ts).
 * Built on call, so an app that never uses it registers no second set of data sources.
 */
@Module({})
export class ExistingDatabaseModule {
  static forRoot(mainEntities: Entities): DynamicModule {
    return {
      module: ExistingDatabaseModule,
      imports: databaseImports(
        async (options) => retryWriteConflicts(new DataSource(options)),
        true,
        mainEntities,
      ),
    };
  }
}
