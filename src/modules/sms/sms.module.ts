import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging/messaging.module.js';
import { SmsXmlController } from './sms-xml.controller.js';
import { SmsController } from './sms.controller.js';
import { SmsPolicy } from './sms.policy.js';

@Module({
  imports: [MessagingModule],
  controllers: [SmsController, SmsXmlController],
  providers: [SmsPolicy],
  exports: [SmsPolicy],
})
export class SmsModule {}
