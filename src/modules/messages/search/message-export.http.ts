import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { Response } from 'express';
import type { MessageExportQuery } from './message-filter.dto.js';
import { ExportLeases } from './export-leases.service.js';
import { MessageExportService } from './message-export.service.js';

/**
 * The export as an HTTP attachment, at most EXPORTS_PER_ACCOUNT at once per family (an account and
 * its sub-accounts) across the
 * API processes; a client that goes away, or takes nothing for EXPORT_STALL_SECONDS, stops the
 * query.
 */
@Injectable()
export class MessageExportHttp {
  private readonly log = new Logger('MessageExport');

  constructor(
    private readonly exports: MessageExportService,
    private readonly leases: ExportLeases,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `familyId`: the caller's family root (familyRoot): a parent and its sub-accounts share its slots. */
  async send(
    familyId: string,
    accountId: string,
    q: MessageExportQuery,
    res: Response,
    testMode = false,
  ): Promise<void> {
    const lease = await this.leases.acquire(familyId);
    try {
      await this.run(accountId, q, res, testMode);
    } finally {
      await lease.release();
    }
  }

  private async run(accountId: string, q: MessageExportQuery, res: Response, testMode: boolean) {
    // Errors up to here (a bad filter, MySQL away) still get the error envelope.
    const prepared = await this.exports.prepare(accountId, q, testMode);
    const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
    res.status(200);
    res.setHeader('Content-Type', prepared.contentType);
    res.setHeader('Content-Disposition', `attachment; filename="messages-${stamp}.${prepared.format}"`);
    res.setHeader('Cache-Control', 'no-store');
    try {
      await prepared.writeTo(res, { stallMs: this.config.exportStallMs });
    } catch (err) {
      // The client left (the query is already stopped), or MySQL failed mid-way: the response
      // is cut without its final chunk, which tells the client the export is incomplete.
      if (!res.destroyed) res.destroy();
      if (!res.writableEnded && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
        this.log.warn(`export stopped after ${prepared.count()} rows: ${(err as Error).message}`);
    }
  }
}
