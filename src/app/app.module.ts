import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '../modules/api-keys/auth/auth.module.js';
import { LoggingModule } from '../platform/logging/logging.module.js';
import { RedisModule } from '../platform/redis/redis.module.js';
import type { AppConfig } from '../config/config.js';
import { ConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { MAIN_ENTITIES } from './entities.js';
import { AccountsModule } from '../modules/accounts/accounts.module.js';
import { ConnectorsPageModule } from '../modules/admin/connectors-page.module.js';
import { QueueDashboardModule } from '../modules/admin/queue-dashboard.module.js';
import { ApiKeysModule } from '../modules/api-keys/api-keys.module.js';
import { BalanceHttpModule } from '../modules/balance/balance-http.module.js';
import { ChatModule } from '../modules/sending/channels/chat/chat.module.js';
import { EmailModule } from '../modules/sending/channels/email/email.module.js';
import { HealthModule } from '../modules/health/health.module.js';
import { MessagesHttpModule } from '../modules/messages/messages-http.module.js';
import { RequestSummaryModule } from '../modules/request-summary/request-summary.module.js';
import { MetricsHttpModule } from '../modules/metrics/metrics-http.module.js';
import { SchedulingModule } from '../modules/delivery/scheduling/scheduling.module.js';
import { RequestLogsModule } from '../modules/request-logs/request-logs.module.js';
import { TemplatesHttpModule } from '../modules/templates/templates-http.module.js';
import { SmsModule } from '../modules/sending/channels/sms/sms.module.js';
import { InboundHttpModule } from '../modules/inbound/inbound-http.module.js';
import { WebhooksHttpModule } from '../modules/callbacks/webhooks/webhooks-http.module.js';
import { SuppressionsHttpModule } from '../modules/suppressions/suppressions-http.module.js';
import { SubaccountsHttpModule } from '../modules/subaccounts/subaccounts-http.module.js';
import { ErasureHttpModule } from '../modules/retention/erasure-http.module.js';
import { LinkRedirectsModule } from '../modules/link-redirects/link-redirects.module.js';
import { AllQueuesModule } from '../modules/health/every-queue.module.js';
import { STATE_LISTENERS } from './state-listeners.js';
import { WorkerModule } from './worker.module.js';
import { SmppServerModule } from '../modules/smpp-server/smpp-server.module.js';
import { SmppOutboxModule } from '../modules/smpp-server/receipts/smpp-outbox.module.js';
import { CountriesHttpModule } from '../modules/fraud/countries/countries-http.module.js';
import { LookupHttpModule } from '../modules/lookup/lookup-http.module.js';
import { VerifyHttpModule } from '../modules/verify/verify-http.module.js';

/** The HTTP API; with `runWorkers` it also consumes the dispatch queues in-process. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule,
        MetricsHttpModule,
        DatabaseModule.forRoot(MAIN_ENTITIES),
        RedisModule,
        AllQueuesModule,
        AccountsModule,
        ApiKeysModule,
        // The guard chain (api key → ip → rate limit) and one log row per authenticated request.
        AuthModule,
        RequestLogsModule,
        HealthModule.forRoot({ workers: config.runWorkers ? WorkerModule : null }),
        BalanceHttpModule,
        SmsModule,
        EmailModule,
        ChatModule,
        TemplatesHttpModule,
        InboundHttpModule,
        SuppressionsHttpModule,
        WebhooksHttpModule,
        SchedulingModule.forRoot({ stateListener: STATE_LISTENERS }),
        MessagesHttpModule,
        RequestSummaryModule,
        ErasureHttpModule,
        // Short links: /l/<code>, the redirect recipients follow.
        LinkRedirectsModule,
        SubaccountsHttpModule,
        CountriesHttpModule,
        LookupHttpModule,
        VerifyHttpModule,
        // Customers' SMPP binds (SMPP_SERVER_PORT; off at 0).
        SmppServerModule,
        SmppOutboxModule,
        ...(config.runWorkers ? [WorkerModule] : []),
        // The operators' queue dashboard and connectors page, only when ADMIN_TOKEN is set.
        ...(config.adminToken
          ? [
              QueueDashboardModule.forRoot({ ...config, adminToken: config.adminToken }),
              ConnectorsPageModule.forRoot({ ...config, adminToken: config.adminToken }),
            ]
          : []),
      ],
    };
  }
}
