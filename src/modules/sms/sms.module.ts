import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging/messaging.module.js';
import { SmsController } from './sms.controller.js';
import { SmsPolicy } from './sms.policy.js';

@Module({ imports: [MessagingModule], controllers: [SmsController], providers: [SmsPolicy], exports: [SmsPolicy] })
export class SmsModule {}
