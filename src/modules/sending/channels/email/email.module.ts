import { Module } from '@nestjs/common';
import { SendingModule } from '../../sending.module.js';
import { EmailController } from './email.controller.js';
import { EmailPreviewController } from './email-preview.controller.js';
import { EmailPolicy } from './email.policy.js';

@Module({
  imports: [SendingModule],
  controllers: [EmailController, EmailPreviewController],
  providers: [EmailPolicy],
  exports: [EmailPolicy],
})
export class EmailModule {}
