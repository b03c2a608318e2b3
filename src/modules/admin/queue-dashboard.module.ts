import { BullAdapter } from '@bull-board/api/bullAdapter';
import { LocalAssetsExpressAdapter } from './local-assets-adapter.js';
import { BullBoardModule } from '@bull-board/nestjs';
import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../../config/config.js';
import { CALLBACK_QUEUE } from '../callbacks/callback-job.js';
import { CallbackQueueModule } from '../callbacks/callback-queue.module.js';
import { DISPATCH_QUEUES } from '../delivery/dispatch.constants.js';
import { QueueModule } from '../delivery/queue.module.js';
import { adminAuth } from './admin-auth.js';
import { CONNECTORS_PAGE_PATH, QUEUE_DASHBOARD_PATH } from './admin-paths.js';

/**
 * Bull Board for operators: every queue with its waiting, active, delayed, failed and
 * completed jobs, and a retry button on failed ones. Only in an API process with ADMIN_TOKEN
 * set, behind that token.
 */
@Module({})
export class QueueDashboardModule {
  static forRoot(config: AppConfig & { adminToken: string }): DynamicModule {
    const queues = [...DISPATCH_QUEUES, CALLBACK_QUEUE];
    return {
      module: QueueDashboardModule,
      imports: [
        // The board finds the queues by their tokens.
        QueueModule,
        CallbackQueueModule,
        BullBoardModule.forRoot({
          route: QUEUE_DASHBOARD_PATH,
          adapter: LocalAssetsExpressAdapter,
          middleware: adminAuth(config.adminToken),
          boardOptions: {
            uiConfig: {
              boardTitle: 'bulk-messaging queues',
              miscLinks: [{ text: 'SMSC links', url: CONNECTORS_PAGE_PATH }],
            },
          },
        }),
        BullBoardModule.forFeature(
          ...queues.map((name) => ({ name, adapter: BullAdapter, options: { allowRetries: true } })),
        ),
      ],
    };
  }
}
