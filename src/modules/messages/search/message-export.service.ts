import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { toNumber } from '../../../platform/money/money.js';
import { MessageSearchStore, type ExportRow } from '../message-search.store.js';
import type { ExportFormat, MessageExportQuery } from './message-filter.dto.js';
import { MessageSearchService } from './message-search.service.js';

/** The columns of a CSV export, in order; an NDJSON line carries the same fields. */
export const EXPORT_FIELDS = [
  'message_id',
  'api_reference',
  'user_reference_id',
  'channel',
  'recipient',
  'status',
  'reason',
  'units',
  'cost',
  'currency',
  'created_at',
  'updated_at',
] as const;

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** Writes are gathered into chunks of about this size: one write per row cost a third of the throughput. */
const CHUNK_BYTES = 64 * 1024;

function exportRecord(r: ExportRow) {
  return {
    message_id: r.channel === 'email' ? String(r.id) : r.uuid,
    api_reference: String(r.send_request_id),
    user_reference_id: r.user_reference_id,
    channel: r.channel,
    recipient: r.recipient,
    status: r.status,
    reason: r.reason,
    units: r.units,
    cost: toNumber(r.cost),
    currency: r.currency,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** Rows in, text out: CSV (RFC 4180, with a header line) or one JSON object per line. */
function formatter(format: ExportFormat): Transform[] {
  if (format === 'csv') {
    const toRecord = new Transform({
      objectMode: true,
      transform: (row: ExportRow, _enc, done) => done(null, exportRecord(row)),
    });
    return [toRecord, stringify({ header: true, columns: [...EXPORT_FIELDS], eof: true })];
  }
  return [
    new Transform({
      writableObjectMode: true,
      transform: (row: ExportRow, _enc, done) => done(null, `${JSON.stringify(exportRecord(row))}\n`),
    }),
  ];
}

function chunker(): Transform {
  let parts: string[] = [];
  let size = 0;
  return new Transform({
    transform(text: Buffer | string, _enc, done) {
      const s = String(text);
      parts.push(s);
      size += s.length;
      if (size >= CHUNK_BYTES) {
        this.push(parts.join(''));
        parts = [];
        size = 0;
      }
      done();
    },
    flush(done) {
      done(null, parts.length ? parts.join('') : undefined);
    },
  });
}

/** An export ready to be written: MySQL has accepted its statement. */
export interface PreparedExport {
  format: ExportFormat;
  contentType: string;
  /** Rows read so far. */
  count(): number;
  /**
   * Streams every row to `out`, at the pace `out` takes them. If `out` fails or goes away the
   * query is stopped and this rejects. `end: false` leaves `out` open (standard output).
   */
  writeTo(out: Writable, options?: { end?: boolean }): Promise<void>;
  /** Stops the query without writing (when the export is abandoned before writeTo). */
  close(): Promise<void>;
}

@Injectable()
export class MessageExportService {
  constructor(
    private readonly search: MessageSearchService,
    private readonly store: MessageSearchStore,
  ) {}

  async prepare(accountId: string, q: MessageExportQuery): Promise<PreparedExport> {
    const format = q.format ?? 'csv';
    const filter = await this.search.filter(accountId, q);
    const query = await this.store.openExport(filter);
    let rows = 0;
    const counter = new Transform({
      objectMode: true,
      transform: (row: ExportRow, _enc, done) => {
        rows++;
        done(null, row);
      },
    });
    return {
      format,
      contentType: EXPORT_CONTENT_TYPES[format],
      count: () => rows,
      close: () => query.close(),
      writeTo: async (out, options = {}) => {
        try {
          await pipeline([query.rows, counter, ...formatter(format), chunker(), out], {
            end: options.end ?? true,
          });
        } finally {
          await query.close();
        }
      },
    };
  }
}
