import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging/messaging.module.js';
import { EmailController } from './email.controller.js';
import { EmailPolicy } from './email.policy.js';

@Module({
  imports: [MessagingModule],
  controllers: [EmailController],
  providers: [EmailPolicy],
  exports: [EmailPolicy],
})
export class EmailModule {}
