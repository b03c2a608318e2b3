import { Command, Option, SubCommand } from 'nest-commander';
import { CliCommand, CommandGroup } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { iso, printJson, printLine, printTable } from '../../platform/cli/output.js';
import { AccountError, AccountsService } from '../accounts/accounts.service.js';
import { InboundNumberStore, NumberTaken } from './inbound-number.store.js';
import { normaliseKeyword } from './keywords.js';

/** A long number (with country code) or a short code: 3-15 digits, a leading + dropped. */
export function parseInboundNumber(v: string): string {
  const n = v
    .trim()
    .replace(/[\s\-.()]/g, '')
    .replace(/^\+/, '');
  if (!/^[1-9]\d{2,14}$/.test(n)) throw new UsageError('Expected a number or short code of 3-15 digits.');
  return n;
}

function parseKeyword(v: string): string {
  const k = normaliseKeyword(v);
  if (!k) throw new UsageError('Expected one word of letters and digits (at most 32).');
  return k;
}

interface NumberOptions {
  json?: boolean;
  username?: string;
  number: string;
  keyword?: string;
}

@SubCommand({
  name: 'add',
  description: 'assign an inbound number to an account; with --keyword, share a short code by first word',
})
export class NumbersAddCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly numbers: InboundNumberStore,
  ) {
    super();
  }

  async run(_: string[], o: NumberOptions & { username: string }): Promise<void> {
    const account = await this.accounts.requireByUsername(o.username);
    const keyword = o.keyword ?? '';
    try {
      await this.numbers.add(account.id, o.number, keyword);
    } catch (err) {
      if (!(err instanceof NumberTaken)) throw err;
      throw new AccountError(
        keyword
          ? `keyword ${keyword} on ${o.number} is already assigned`
          : `${o.number} is already assigned as a whole number`,
      );
    }
    const view = { number: o.number, keyword: keyword || null, username: account.username };
    if (o.json) return printJson(view);
    printLine(`Assigned ${o.number}${keyword ? ` keyword ${keyword}` : ''} to ${account.username}`);
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--number <number>', description: 'long number or short code', required: true })
  parseNumber(v: string): string {
    return parseInboundNumber(v);
  }

  @Option({ flags: '--keyword <word>', description: 'first word that routes a shared short code here' })
  parseKeyword(v: string): string {
    return parseKeyword(v);
  }
}

@SubCommand({ name: 'list', description: 'list inbound numbers and keywords' })
export class NumbersListCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly numbers: InboundNumberStore,
  ) {
    super();
  }

  async run(_: string[], o: { json?: boolean; username?: string }): Promise<void> {
    const account = o.username ? await this.accounts.requireByUsername(o.username) : null;
    const numbers = (await this.numbers.list(account?.id)).map((n) => ({
      number: n.number,
      keyword: n.keyword || null,
      username: n.username,
      created_at: iso(n.created_at),
    }));
    if (o.json) return printJson({ numbers });
    printTable(numbers, [
      ['number', 'NUMBER'],
      ['keyword', 'KEYWORD'],
      ['username', 'USERNAME'],
      ['created_at', 'CREATED'],
    ]);
  }

  @Option({ flags: '--username <username>', description: 'only this account' })
  parseUsername(v: string): string {
    return v;
  }
}

@SubCommand({ name: 'remove', description: 'take an inbound number (or one keyword on it) away' })
export class NumbersRemoveCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly numbers: InboundNumberStore,
  ) {
    super();
  }

  async run(_: string[], o: NumberOptions): Promise<void> {
    const account = o.username ? await this.accounts.requireByUsername(o.username) : null;
    const keyword = o.keyword ?? '';
    const removed = await this.numbers.remove(o.number, keyword, account?.id);
    if (removed === 0)
      throw new AccountError(`${o.number}${keyword ? ` keyword ${keyword}` : ''} is not assigned`);
    if (o.json) return printJson({ number: o.number, keyword: keyword || null, removed });
    printLine(`Removed ${o.number}${keyword ? ` keyword ${keyword}` : ''}`);
  }

  @Option({ flags: '--number <number>', required: true })
  parseNumber(v: string): string {
    return parseInboundNumber(v);
  }

  @Option({
    flags: '--keyword <word>',
    description: 'only this keyword (default: the whole-number assignment)',
  })
  parseKeyword(v: string): string {
    return parseKeyword(v);
  }

  @Option({ flags: '--username <username>', description: 'only if assigned to this account' })
  parseUsername(v: string): string {
    return v;
  }
}

const SUBCOMMANDS = [NumbersAddCommand, NumbersListCommand, NumbersRemoveCommand];

@Command({
  name: 'numbers',
  description: 'inbound numbers and short-code keywords',
  subCommands: SUBCOMMANDS,
})
export class NumbersCommand extends CommandGroup {}

export const NUMBER_COMMANDS = [NumbersCommand, ...SUBCOMMANDS];
