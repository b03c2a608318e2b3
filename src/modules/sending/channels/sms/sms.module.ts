import { Module } from '@nestjs/common';
import { SendingModule } from '../../sending.module.js';
import { SmsXmlController } from './sms-xml.controller.js';
import { SmsController } from './sms.controller.js';
import { SmsPreviewController } from './sms-preview.controller.js';
import { SmsPolicy } from './sms.policy.js';

@Module({
  imports: [SendingModule],
  controllers: [SmsController, SmsPreviewController, SmsXmlController],
  providers: [SmsPolicy],
  exports: [SmsPolicy],
})
export class SmsModule {}
