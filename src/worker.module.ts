import { Module } from '@nestjs/common';

/** The dispatch processors; imported by the API process (RUN_WORKERS) and by worker.ts. */
@Module({})
export class WorkerModule {}
