import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { openDataSource, type Entities } from './data-sources.js';
import { databaseImports } from './typeorm-imports.js';

const logger = new Logger('Database');

/** The three databases, each created and migrated at start (the API and the workers). */
@Module({})
export class DatabaseModule {
  /** `mainEntities`: the entity classes of the main database (src/app/entities.ts). */
  static forRoot(mainEntities: Entities): DynamicModule {
    return {
      module: DatabaseModule,
      imports: databaseImports(
        (options, db, waitSeconds) => openDataSource(options, db, waitSeconds, logger),
        false,
        mainEntities,
      ),
    };
  }
}
