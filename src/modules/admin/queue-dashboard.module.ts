import { BullAdapter } from '@bull-board/api/bullAdapter';
import { LocalAssetsExpressAdapter } from './local-assets-adapter.js';
import { BullBoardModule } from '@bull-board/nestjs';
import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../../config/config.js';
import { CALLBACK_QUEUE } from '../callbacks/callback-job.js';
import { CallbackQueueModule } from '../callbacks/callback-queue.module.js';
import { DISPATCH_QUEUES } from '../delivery/dispatch/dispatch.constants.js';
import { QueueModule } from '../delivery/queue.module.js';
import { adminAuth } from './admin-auth.js';
import { CONNECTORS_PAGE_PATH, QUEUE_DASHBOARD_PATH } from './admin-paths.js';
import { readOnly } from './read-only.js';

/**
 * Bull Board for operators: every queue with its waiting, active, delayed, failed and
 * completed jobs, read-only. Only in an API process with ADMIN_TOKEN set, behind that token.
 * No write (add, retry, clean, empty, pause, obliterate…): the admin token is a reader's
 * credential, and a job added here would be sent by a worker as if a tenant had queued it.
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
          // Writes are refused first, so that no token, however good, reaches one.
          middleware: [readOnly, adminAuth(config.adminToken)],
          boardOptions: {
            uiConfig: {
              boardTitle: 'bulk-messaging queues',
              miscLinks: [{ text: 'SMSC links', url: CONNECTORS_PAGE_PATH }],
            },
          },
        }),
        BullBoardModule.forFeature(
          ...queues.map((name) => ({ name, adapter: BullAdapter, options: { readOnlyMode: true } })),
        ),
      ],
    };
  }
}
