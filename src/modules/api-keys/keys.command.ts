import { Help, Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { cell, printJson, printLine, printTable } from '../../platform/cli/output.js';
import {
  collect,
  parseIpOrCidr,
  parseDailyLimit,
  parseIsoDate,
  parsePriority,
  parseRateLimit,
  type RateLimitValue,
} from '../../platform/cli/parsers.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { KEY_MODES, type KeyMode } from './api-key.entity.js';
import { keyView, withSecret } from './key-view.js';
import { ApiKeysService, type UpdateKeyInput } from './api-keys.service.js';

interface JsonOption {
  json?: boolean;
}

const NEVER = 'never';
const DEFAULT = 'default';
const NONE = 'none';

const EXPIRY_HELP = `
A date without an offset is UTC. An --expires-at that is already past is refused as a failure
(exit 1, nothing changed); a value that is not an ISO 8601 date is a usage error (exit 2).`;

function printKey(view: ReturnType<typeof keyView>): void {
  for (const [field, value] of Object.entries(view)) printLine(`${`${field}:`.padEnd(14)}${cell(value)}`);
}

/** For create and rotate: the only two moments the secret is ever shown. */
function printSecret(view: ReturnType<typeof keyView>, key: string, verb: string): void {
  printLine(`${verb} key ${view.id} "${view.name}" for ${view.username} (prefix ${view.key_prefix})`);
  printLine(`key: ${key}`);
  printLine('Store it now: it is not shown again.');
}

@SubCommand({ name: 'create', description: 'create an API key for an account; prints the key once' })
export class KeysCreateCommand extends CliCommand {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async run(
    _: string[],
    o: JsonOption & {
      username: string;
      name: string;
      allowIp?: string[];
      expiresAt?: Date;
      rateLimit?: RateLimitValue;
      mode?: KeyMode;
      dailyLimit?: string;
      priority?: 'high' | 'normal';
    },
  ): Promise<void> {
    const { apiKey, secret } = await this.keys.create({
      username: o.username,
      name: o.name,
      allowedIps: o.allowIp,
      expiresAt: o.expiresAt ?? null,
      rateLimit: o.rateLimit ?? null,
      mode: o.mode ?? 'live',
      dailyLimit: o.dailyLimit ?? null,
      priority: o.priority ?? null,
    });
    const view = keyView(await this.keys.describe(apiKey.id));
    if (o.json) return printJson(withSecret(view, secret));
    printSecret(view, secret, 'Created');
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--name <name>', description: '1-100 characters, to tell keys apart', required: true })
  parseName(v: string): string {
    return v;
  }

  @Option({
    flags: '--allow-ip <ip-or-cidr>',
    description: 'accept requests only from here; repeat for several (default: anywhere)',
  })
  parseAllowIp(v: string, previous?: string[]): string[] {
    return collect(parseIpOrCidr(v), previous);
  }

  @Option({
    flags: '--expires-at <iso-date>',
    description: 'the key stops working at this time (default: never)',
  })
  parseExpiresAt(v: string): Date {
    return parseIsoDate(v);
  }

  @Option({
    flags: '--rate-limit <n/seconds>',
    description: 'at most N requests per SECONDS (default: the service default)',
  })
  parseRateLimit(v: string): RateLimitValue {
    return parseRateLimit(v);
  }

  @Option({
    flags: '--mode <live|test>',
    description:
      'test: requests are stored and answered but reach no provider and cost nothing (default: live)',
  })
  parseMode(v: string): KeyMode {
    const mode = v.trim().toLowerCase();
    if (!(KEY_MODES as readonly string[]).includes(mode)) throw new UsageError('Expected live or test.');
    return mode as KeyMode;
  }

  @Option({
    flags: '--daily-limit <amount>',
    description: "the most this key may spend per UTC day, in the account's currency (default: no limit)",
  })
  parseDailyLimit(v: string): string {
    return parseDailyLimit(v);
  }

  @Option({
    flags: '--priority <priority>',
    description: 'high or normal (default): the priority of sends that name none; high for one-time codes',
  })
  parsePriority(v: string): 'high' | 'normal' {
    return parsePriority(v);
  }

  @Help('after')
  expiryHelp(): string {
    return `${EXPIRY_HELP}\nA test key (--mode test) starts with bmk_test_; its mode never changes.`;
  }
}

@SubCommand({ name: 'list', description: 'list API keys (never the keys themselves)' })
export class KeysListCommand extends CliCommand {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly accounts: AccountsService,
  ) {
    super();
  }

  async run(_: string[], o: JsonOption & { username?: string }): Promise<void> {
    if (o.username) await this.accounts.requireByUsername(o.username);
    const keys = (await this.keys.list(o.username)).map(keyView);
    if (o.json) return printJson({ keys });
    printTable(keys, [
      ['id', 'ID'],
      ['username', 'USERNAME'],
      ['name', 'NAME'],
      ['key_prefix', 'PREFIX'],
      ['status', 'STATUS'],
      ['allowed_ips', 'ALLOWED_IPS'],
      ['mode', 'MODE'],
      ['rate_limit', 'RATE'],
      ['daily_limit', 'DAILY_LIMIT'],
      ['expires_at', 'EXPIRES'],
    ]);
  }

  @Option({ flags: '--username <username>', description: "only this account's keys" })
  parseUsername(v: string): string {
    return v;
  }
}

@SubCommand({ name: 'show', arguments: '<id>', description: 'show one API key (never the key itself)' })
export class KeysShowCommand extends CliCommand {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async run([id]: string[], o: JsonOption): Promise<void> {
    const view = keyView(await this.keys.describe(id));
    if (o.json) return printJson(view);
    printKey(view);
  }
}

@SubCommand({ name: 'revoke', arguments: '<id>', description: 'revoke an API key for good' })
export class KeysRevokeCommand extends CliCommand {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async run([id]: string[], o: JsonOption): Promise<void> {
    await this.keys.revoke(id);
    const view = keyView(await this.keys.describe(id));
    if (o.json) return printJson(view);
    printLine(`Key ${view.id} "${view.name}" revoked at ${view.revoked_at}`);
  }
}

@SubCommand({
  name: 'rotate',
  arguments: '<id>',
  description: 'replace the key with a new one, printed once; the old key stops working',
})
export class KeysRotateCommand extends CliCommand {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async run([id]: string[], o: JsonOption): Promise<void> {
    const { secret } = await this.keys.rotate(id);
    const view = keyView(await this.keys.describe(id));
    if (o.json) return printJson(withSecret(view, secret));
    printSecret(view, secret, 'Rotated');
  }

  @Help('after')
  rotateHelp(): string {
    return '\nA revoked key cannot be rotated (exit 1): create a new key instead.';
  }
}

@SubCommand({
  name: 'update',
  arguments: '<id>',
  description: "change a key's name, allow list, expiry, rate limit or daily spend limit",
})
export class KeysUpdateCommand extends CliCommand {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async run(
    [id]: string[],
    o: JsonOption & {
      name?: string;
      allowIp?: string[];
      clearAllowIp?: boolean;
      expiresAt?: Date | typeof NEVER;
      rateLimit?: RateLimitValue | typeof DEFAULT;
      dailyLimit?: string | typeof NONE;
      priority?: 'high' | 'normal';
    },
  ): Promise<void> {
    if (o.allowIp && o.clearAllowIp)
      throw new UsageError('--allow-ip and --clear-allow-ip cannot be used together');
    const input: UpdateKeyInput = {};
    if (o.name !== undefined) input.name = o.name;
    if (o.allowIp) input.allowedIps = o.allowIp;
    if (o.clearAllowIp) input.allowedIps = null;
    if (o.expiresAt !== undefined) input.expiresAt = o.expiresAt === NEVER ? null : o.expiresAt;
    if (o.rateLimit !== undefined) input.rateLimit = o.rateLimit === DEFAULT ? null : o.rateLimit;
    if (o.dailyLimit !== undefined) input.dailyLimit = o.dailyLimit === NONE ? null : o.dailyLimit;
    if (o.priority !== undefined) input.priority = o.priority;
    if (Object.keys(input).length === 0) {
      throw new UsageError(
        'nothing to change: give --name, --allow-ip, --clear-allow-ip, --expires-at, --rate-limit, --daily-limit or --priority',
      );
    }
    await this.keys.update(id, input);
    const view = keyView(await this.keys.describe(id));
    if (o.json) return printJson(view);
    printKey(view);
  }

  @Option({ flags: '--name <name>', description: '1-100 characters' })
  parseName(v: string): string {
    return v;
  }

  @Option({ flags: '--allow-ip <ip-or-cidr>', description: 'replace the allow list; repeat for several' })
  parseAllowIp(v: string, previous?: string[]): string[] {
    return collect(parseIpOrCidr(v), previous);
  }

  @Option({ flags: '--clear-allow-ip', description: 'accept requests from anywhere' })
  parseClearAllowIp(): boolean {
    return true;
  }

  // commander turns a parser's null into '', so "no value" travels as the sentinel word itself.
  @Option({ flags: '--expires-at <iso-date|never>', description: 'a new expiry, or never' })
  parseExpiresAt(v: string): Date | typeof NEVER {
    return v.trim().toLowerCase() === NEVER ? NEVER : parseIsoDate(v);
  }

  @Option({
    flags: '--rate-limit <n/seconds|default>',
    description: 'a new limit, or default for the service default',
  })
  parseRateLimit(v: string): RateLimitValue | typeof DEFAULT {
    return v.trim().toLowerCase() === DEFAULT ? DEFAULT : parseRateLimit(v);
  }

  @Option({
    flags: '--daily-limit <amount|none>',
    description: 'a new daily spend limit (UTC day, account currency), or none',
  })
  parseDailyLimit(v: string): string | typeof NONE {
    return v.trim().toLowerCase() === NONE ? NONE : parseDailyLimit(v);
  }

  @Option({
    flags: '--priority <priority>',
    description: 'high or normal: the priority of sends that name none',
  })
  parsePriority(v: string): 'high' | 'normal' {
    return parsePriority(v);
  }

  @Help('after')
  updateHelp(): string {
    return `${EXPIRY_HELP}\nA revoked key cannot be changed (exit 1).`;
  }
}

/** The key subcommands of the `keys` command (`keys logs` is in request-logs/). */
export const KEY_SUBCOMMANDS = [
  KeysCreateCommand,
  KeysListCommand,
  KeysShowCommand,
  KeysRevokeCommand,
  KeysRotateCommand,
  KeysUpdateCommand,
];
