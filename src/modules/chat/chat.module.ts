import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { CredentialsModule } from '../accounts/credentials.module.js';
import { QueueModule } from '../dispatch/queue.module.js';
import { MessagingModule } from '../messaging/messaging.module.js';
import { ChatController } from './chat.controller.js';
import { ChatPolicy } from './chat.policy.js';
import { ChatDeliveryEstimator } from './delivery-estimate.js';

@Module({
  imports: [MessagingModule, AccountsModule, CredentialsModule, QueueModule],
  controllers: [ChatController],
  providers: [ChatPolicy, ChatDeliveryEstimator],
  exports: [ChatPolicy],
})
export class ChatModule {}
