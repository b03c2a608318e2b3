import { Module } from '@nestjs/common';
import { ErasureController } from './erasure.controller.js';
import { RetentionModule } from './retention.module.js';

/** The account's own erasure route. */
@Module({
  imports: [RetentionModule],
  controllers: [ErasureController],
})
export class ErasureHttpModule {}
