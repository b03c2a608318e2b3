import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Logger } from '@nestjs/common';
import { Command, Option, SubCommand } from 'nest-commander';
import { CliCommand, CommandGroup } from '../../../platform/cli/cli-command.js';
import { UsageError } from '../../../platform/cli/cli-errors.js';
import { printJson } from '../../../platform/cli/output.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { PeriodicTask } from '../../../platform/periodic/periodic-task.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { MessageExportQuery } from './message-filter.dto.js';
import { MessageExportService, type PreparedExport } from './message-export.service.js';

interface ExportOptions {
  username?: string;
  output?: string;
  json?: boolean;
  format?: string;
  status?: string;
  channel?: string;
  recipient?: string;
  apiReference?: string;
  userReferenceId?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** The filters, checked by the same rules as the HTTP export's query string. */
async function toQuery(o: ExportOptions): Promise<MessageExportQuery> {
  const plain = {
    format: o.format,
    status: o.status,
    channel: o.channel,
    recipient: o.recipient,
    api_reference: o.apiReference,
    user_reference_id: o.userReferenceId,
    created_from: o.createdFrom,
    created_to: o.createdTo,
  };
  const query = plainToInstance(MessageExportQuery, plain);
  const errors = await validate(query, { whitelist: true });
  if (errors.length) {
    const first = Object.values(errors[0].constraints ?? {})[0] ?? `bad --${errors[0].property}`;
    throw new UsageError(first);
  }
  return query;
}

/**
 * Progress on stderr while rows go out: rewritten in place on a terminal, a line every few
 * seconds otherwise (a log file should not fill with counts).
 */
function progress(prepared: PreparedExport): () => void {
  const tty = process.stderr.isTTY === true;
  const ticker = new PeriodicTask({
    run: () =>
      void process.stderr.write(`${tty ? '\r' : ''}${prepared.count()} messages exported${tty ? '' : '\n'}`),
    everyMs: tty ? 250 : 5000,
    logger: new Logger('MessageExport'),
    failure: 'progress not written',
  });
  ticker.start();
  return () => {
    void ticker.stop();
    if (tty) process.stderr.write('\r');
  };
}

@SubCommand({
  name: 'export',
  description:
    "write an account's messages as CSV or NDJSON, oldest first, to standard output or --output FILE " +
    '(filters as the API: --status, --channel, --recipient, --api-reference, --user-reference-id, --created-from, --created-to)',
})
export class MessagesExportCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly exports: MessageExportService,
  ) {
    super();
  }

  async run(_: string[], o: ExportOptions): Promise<void> {
    if (!o.username) throw new UsageError('--username is required');
    if (o.json && !o.output)
      throw new UsageError('--json needs --output: standard output carries the export');
    const query = await toQuery(o);
    const account = await this.accounts.requireByUsername(o.username);
    let prepared: PreparedExport;
    try {
      prepared = await this.exports.prepare(account.id, query);
    } catch (err) {
      if (err instanceof AppException) throw new UsageError(err.details[0]?.message ?? err.message);
      throw err;
    }
    const stop = progress(prepared);
    const where = o.output ?? 'standard output';
    try {
      if (o.output) await prepared.writeTo(createWriteStream(o.output));
      else await prepared.writeTo(process.stdout, { end: false });
    } catch (err) {
      // Half a file is worse than none: it would read as a complete export.
      if (o.output) await rm(o.output, { force: true });
      throw err;
    } finally {
      stop();
    }
    const view = { exported: prepared.count(), format: prepared.format, output: o.output ?? null };
    if (o.json) return printJson(view);
    process.stderr.write(`Exported ${view.exported} messages (${view.format}) to ${where}\n`);
  }

  @Option({ flags: '--username <name>', description: 'the account', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--format <format>', description: 'csv (default) or ndjson' })
  parseFormat(v: string): string {
    return v;
  }

  @Option({ flags: '--output <file>', description: 'write to this file instead of standard output' })
  parseOutput(v: string): string {
    return v;
  }

  @Option({ flags: '--status <status>', description: 'only messages in this state' })
  parseStatus(v: string): string {
    return v;
  }

  @Option({ flags: '--channel <channel>', description: 'sms, email or chat' })
  parseChannel(v: string): string {
    return v;
  }

  @Option({ flags: '--recipient <recipient>', description: 'only messages to this recipient' })
  parseRecipient(v: string): string {
    return v;
  }

  @Option({ flags: '--api-reference <ref>', description: 'only the messages of this request' })
  parseApiReference(v: string): string {
    return v;
  }

  @Option({
    flags: '--user-reference-id <id>',
    description: 'only the request(s) with this user_reference_id',
  })
  parseUserReferenceId(v: string): string {
    return v;
  }

  @Option({
    flags: '--created-from <time>',
    description: 'created at or after (a date, or ISO 8601 with offset)',
  })
  parseCreatedFrom(v: string): string {
    return v;
  }

  @Option({ flags: '--created-to <time>', description: 'created before (exclusive)' })
  parseCreatedTo(v: string): string {
    return v;
  }
}

const SUBCOMMANDS = [MessagesExportCommand];

@Command({ name: 'messages', description: "an account's messages", subCommands: SUBCOMMANDS })
export class MessagesCommand extends CommandGroup {}

/** Every provider the messages commands need registered (nest-commander discovers subcommands as providers). */
export const MESSAGE_COMMANDS = [MessagesCommand, ...SUBCOMMANDS];
