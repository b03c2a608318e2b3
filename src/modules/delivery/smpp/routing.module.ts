import { Module } from '@nestjs/common';
import { ConnectorStore } from './connector.store.js';
import { RoutingService } from './routing.service.js';

/** Routes and destination prices, for the send pipeline, the workers and the CLI (MySQL only). */
@Module({
  providers: [ConnectorStore, RoutingService],
  exports: [ConnectorStore, RoutingService],
})
export class RoutingModule {}
