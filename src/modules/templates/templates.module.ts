import { Module } from '@nestjs/common';
import { TemplateStore } from './template.store.js';
import { TemplatesService } from './templates.service.js';

/** Message templates per account; the send pipeline looks them up for `template_id`. */
@Module({
  providers: [TemplateStore, TemplatesService],
  exports: [TemplatesService],
})
export class TemplatesModule {}
