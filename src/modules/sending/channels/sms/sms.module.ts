import { Module } from '@nestjs/common';
import { SendingModule } from '../../sending.module.js';
import { SmsXmlController } from './sms-xml.controller.js';
import { SmsController } from './sms.controller.js';
import { SmsPreviewController } from './sms-preview.controller.js';
import { SmsPolicyModule } from './sms-policy.module.js';

/** The SMS routes (JSON, XML, preview). */
@Module({
  imports: [SendingModule, SmsPolicyModule],
  controllers: [SmsController, SmsPreviewController, SmsXmlController],
})
export class SmsModule {}
