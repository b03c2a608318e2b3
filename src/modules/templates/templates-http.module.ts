import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { TemplatesController } from './templates.controller.js';
import { TemplatesModule } from './templates.module.js';

/** The templates routes (their writes take an Idempotency-Key). */
@Module({
  imports: [TemplatesModule, IdempotencyModule],
  controllers: [TemplatesController],
})
export class TemplatesHttpModule {}
