import { Module } from '@nestjs/common';
import { AccountsModule } from '../../../accounts/accounts.module.js';
import { CredentialsModule } from '../../../api-keys/auth/credentials.module.js';
import { QueueModule } from '../../../delivery/queue.module.js';
import { SendingModule } from '../../sending.module.js';
import { ChatController } from './chat.controller.js';
import { ChatPreviewController } from './chat-preview.controller.js';
import { ChatPolicy } from './chat.policy.js';
import { ChatDeliveryEstimator } from './delivery-estimate.service.js';

@Module({
  imports: [SendingModule, AccountsModule, CredentialsModule, QueueModule],
  controllers: [ChatController, ChatPreviewController],
  providers: [ChatPolicy, ChatDeliveryEstimator],
  exports: [ChatPolicy],
})
export class ChatModule {}
