import { Module } from '@nestjs/common';
import { TemplateResolver } from './template-resolver.js';
import { TemplateStore } from './template.store.js';
import { TemplatesController } from './templates.controller.js';
import { TemplatesService } from './templates.service.js';

/** Message templates per account, and the resolver the send pipeline uses for `template_id`. */
@Module({
  controllers: [TemplatesController],
  providers: [TemplateStore, TemplatesService, TemplateResolver],
  exports: [TemplateResolver],
})
export class TemplatesModule {}
