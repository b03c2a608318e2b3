import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { TemplateStore } from './template.store.js';
import { TemplatesController } from './templates.controller.js';
import { TemplatesService } from './templates.service.js';

/** Message templates per account; the send pipeline looks them up for `template_id`. */
@Module({
  imports: [IdempotencyModule],
  controllers: [TemplatesController],
  providers: [TemplateStore, TemplatesService],
  exports: [TemplatesService],
})
export class TemplatesModule {}
