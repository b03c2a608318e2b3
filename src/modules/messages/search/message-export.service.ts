import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { PeriodicTask } from '../../../platform/periodic/periodic-task.js';
import { Transform, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MessageSearchStore, type ExportQuery, type ExportRow } from '../message-search.store.js';
import type { ExportFormat, MessageExportQuery } from './message-filter.dto.js';
import { MessageSearchService } from './message-search.service.js';
import { escapeControls } from '../../../platform/text/control-characters.js';

/**
 * The columns of a CSV export, in order; an NDJSON line carries the same fields. The chat-to-SMS
 * links come last, after the twelve columns clients read by position, then the SMPP id.
 */
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
  'fallback_message_id',
  'fallback_of',
  'smpp_message_id',
] as const;

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** Lines are gathered into chunks of about this size: a write per row cost a third of the throughput. */
const CHUNK_CHARS = 64 * 1024;

// Number() of the stored decimal text is the number toNumber() gives, without a Decimal per row.
const messageId = (r: ExportRow) => (r.channel === 'email' ? String(r.id) : r.uuid);

export function exportRecord(r: ExportRow) {
  return {
    message_id: messageId(r),
    api_reference: String(r.send_request_id),
    user_reference_id: r.user_reference_id,
    channel: r.channel,
    recipient: r.recipient,
    status: r.status,
    reason: r.reason,
    units: r.units,
    cost: Number(r.cost),
    currency: r.currency,
    created_at: r.created_at,
    updated_at: r.updated_at,
    fallback_message_id: r.fallback_message_id,
    fallback_of: r.fallback_of,
    smpp_message_id: r.smpp_message_id == null ? null : String(r.smpp_message_id),
  };
}

/**
 * One CSV field as RFC 4180 quotes it (lines end in \n): quoted when it holds a comma, a quote or a line break,
 * quotes doubled; null is empty. (csv-stringify, which the unit test checks this against, ran at
 * a third of the speed the export needs.)
 *
 * A value that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`
 * first (OWASP's advice against CSV injection): a spreadsheet would otherwise run it as a
 * formula, and these fields hold what tenants and recipients wrote (`=HYPERLINK(…)` as a
 * reference, `=cmd|…@example.com` as an e-mail address).
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  // A rejected recipient is stored as sent: NUL, ESC and the like are written as `\u001b`.
  let s = escapeControls(String(value));
  if (FORMULA_START.has(s.charCodeAt(0))) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The first characters a spreadsheet reads as the start of a formula: = + - @ tab CR. */
const FORMULA_START = new Set([0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]);

/**
 * The columns of EXPORT_FIELDS in order. Only the free-text ones can need quoting: ids, enums,
 * numbers, timestamps and UUIDs never hold a comma, a quote or a line break.
 */
export function csvLine(r: ExportRow): string {
  return (
    `${messageId(r)},${r.send_request_id},${csvField(r.user_reference_id)},${r.channel},` +
    `${csvField(r.recipient)},${r.status},${csvField(r.reason)},${r.units},${Number(r.cost)},${r.currency},` +
    `${r.created_at},${r.updated_at},${r.fallback_message_id ?? ''},${r.fallback_of ?? ''},${r.smpp_message_id ?? ''}\n`
  );
}

export function ndjsonLine(r: ExportRow): string {
  return `${JSON.stringify(exportRecord(r))}\n`;
}

export const CSV_HEADER = `${EXPORT_FIELDS.join(',')}\n`;

/** Rows in, text out in chunks: one line per row, counted as it passes. */
function formatter(format: ExportFormat, counted: () => void): Transform {
  const line = format === 'csv' ? csvLine : ndjsonLine;
  let parts: string[] = format === 'csv' ? [CSV_HEADER] : [];
  let size = 0;
  return new Transform({
    writableObjectMode: true,
    transform(row: ExportRow, _enc, done) {
      const text = line(row);
      counted();
      parts.push(text);
      size += text.length;
      if (size >= CHUNK_CHARS) {
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
   * query is stopped and this rejects. `end: false` leaves `out` open (standard output);
   * `stallMs` stops the export (rejecting) once `out` has taken nothing for that long.
   */
  writeTo(out: Writable, options?: { end?: boolean; stallMs?: number }): Promise<void>;
  /** Stops the query without writing (when the export is abandoned before writeTo). */
  close(): Promise<void>;
}

@Injectable()
export class MessageExportService {
  /** Exports under way in this process; each holds a pooled MySQL connection while it runs. */
  private running = 0;
  private readonly slots: number;

  constructor(
    private readonly search: MessageSearchService,
    private readonly store: MessageSearchStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // A quarter of the pool at most: sends and lookups keep the rest however many exports run.
    this.slots = Math.max(1, Math.floor(config.dbPoolSize / 4));
  }

  async prepare(accountId: string, q: MessageExportQuery, testMode = false): Promise<PreparedExport> {
    const format = q.format ?? 'csv';
    const filter = await this.search.filter(accountId, q, testMode);
    // The account's own limit, across processes, is taken before (ExportLeases, for the API).
    if (this.running >= this.slots)
      throw new AppException('RATE_LIMITED', 'Too many exports are under way; retry after 5 s.', [], {
        'Retry-After': '5',
      });
    this.running++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.running--;
    };
    let query: ExportQuery;
    try {
      query = await this.store.openExport(filter);
    } catch (err) {
      release();
      throw err;
    }
    query.rows.once('close', release);
    let rows = 0;
    const counted = () => void rows++;
    return {
      format,
      contentType: EXPORT_CONTENT_TYPES[format],
      count: () => rows,
      close: () => query.close().finally(release),
      writeTo: async (out, options = {}) => {
        const watch = options.stallMs ? watchStall(out, query.rows, options.stallMs) : undefined;
        try {
          await pipeline([query.rows, formatter(format, counted), out], { end: options.end ?? true });
        } finally {
          watch?.stop();
          // Whatever ended it (done, the client gone, a stall, MySQL failing): the slot is free.
          await query.close().finally(release);
        }
      },
    };
  }
}

/**
 * Stops an export whose client takes nothing: while `out` is full (waiting for a drain) and no
 * byte has left for `stallMs`, the rows stream is destroyed with an error, which ends the
 * pipeline, the query and the slot. A client that reads slowly but reads is never cut.
 */
function watchStall(out: Writable, rows: Readable, stallMs: number): { stop(): void } {
  let waitingSince: number | null = null;
  const onDrain = () => (waitingSince = null);
  out.on('drain', onDrain);
  const check = new PeriodicTask({
    run: () => {
      if (!out.writableNeedDrain) return void (waitingSince = null);
      waitingSince ??= Date.now();
      if (Date.now() - waitingSince >= stallMs)
        rows.destroy(new Error(`the client took nothing for ${Math.round(stallMs / 1000)} s`));
    },
    everyMs: Math.max(100, Math.min(1000, stallMs / 4)),
    logger: new Logger('MessageExport'),
    failure: 'export stall check failed',
  });
  check.start();
  return {
    stop() {
      void check.stop();
      out.off('drain', onDrain);
    },
  };
}
