import { Command, Option, SubCommand } from 'nest-commander';
import { CliCommand, CommandGroup } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { cell, iso, printJson, printLine, printTable } from '../../platform/cli/output.js';
import { collect, parseIpOrCidr } from '../../platform/cli/parsers.js';
import { BindRegistry } from './binds/bind.registry.js';
import type { SmppCredential, SmppMode } from './credentials/smpp-credential.store.js';
import {
  SmppCredentialsService,
  type UpdateSmppCredentialInput,
} from './credentials/smpp-credentials.service.js';

interface JsonOption {
  json?: boolean;
}

/** What listings show: never the password or its hash. */
export function credentialView(c: SmppCredential) {
  return {
    system_id: c.systemId,
    username: c.username,
    mode: c.mode,
    status: c.revokedAt ? 'revoked' : 'active',
    allowed_ips: c.allowedIps ?? [],
    max_binds: c.maxBinds,
    tps: c.tps,
    revoked_at: iso(c.revokedAt),
    created_at: iso(c.createdAt),
  };
}

function printCredential(view: ReturnType<typeof credentialView>): void {
  for (const [field, value] of Object.entries(view)) printLine(`${`${field}:`.padEnd(13)}${cell(value)}`);
}

/** For create and password: the only two moments the password is ever shown. */
function printWithPassword(
  c: SmppCredential,
  password: string,
  json: boolean | undefined,
  verb: string,
): void {
  const { system_id, ...rest } = credentialView(c);
  if (json) return printJson({ system_id, password, ...rest });
  printLine(`${verb} SMPP credential ${system_id} for ${c.username} (${c.mode})`);
  printLine(`password: ${password}`);
  printLine('Store it now: it is not shown again.');
}

function parseCount(name: string, max: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v.trim()) || Number(v) < 1 || Number(v) > max)
      throw new UsageError(`${name} must be a whole number from 1 to ${max}.`);
    return Number(v);
  };
}
const parseMaxBinds = parseCount('--max-binds', 1000);
const parseTps = parseCount('--tps', 100_000);

/** The options create and update share. */
abstract class CredentialOptions extends CliCommand {
  @Option({
    flags: '--allow-ip <ip-or-cidr>',
    description: 'accept binds only from here; repeat for several (default: anywhere)',
  })
  parseAllowIp(v: string, previous?: string[]): string[] {
    return collect(parseIpOrCidr(v), previous);
  }

  @Option({ flags: '--max-binds <n>', description: 'binds at once across every API process (default 4)' })
  parseMaxBinds(v: string): number {
    return parseMaxBinds(v);
  }

  @Option({ flags: '--tps <n>', description: 'submits per second across every bind (default 100)' })
  parseTps(v: string): number {
    return parseTps(v);
  }
}

@SubCommand({
  name: 'create',
  description: 'create an SMPP credential (system_id and password) for an account; prints the password once',
})
export class SmppCredentialsCreateCommand extends CredentialOptions {
  constructor(private readonly credentials: SmppCredentialsService) {
    super();
  }

  async run(
    _: string[],
    o: JsonOption & {
      username: string;
      systemId: string;
      mode?: SmppMode;
      allowIp?: string[];
      maxBinds?: number;
      tps?: number;
    },
  ): Promise<void> {
    const { credential, password } = await this.credentials.create({
      username: o.username,
      systemId: o.systemId,
      mode: o.mode,
      allowedIps: o.allowIp,
      maxBinds: o.maxBinds,
      tps: o.tps,
    });
    printWithPassword(credential, password, o.json, 'Created');
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({
    flags: '--system-id <system-id>',
    description: 'what the ESME binds as: 1-15 characters',
    required: true,
  })
  parseSystemId(v: string): string {
    return v;
  }

  @Option({
    flags: '--mode <live|test>',
    description:
      'test: submits are stored and answered but reach no provider and cost nothing (default: live)',
  })
  parseMode(v: string): SmppMode {
    const mode = v.trim().toLowerCase();
    if (mode !== 'live' && mode !== 'test') throw new UsageError('Expected live or test.');
    return mode;
  }
}

@SubCommand({ name: 'list', description: 'list SMPP credentials (never their passwords)' })
export class SmppCredentialsListCommand extends CliCommand {
  constructor(private readonly credentials: SmppCredentialsService) {
    super();
  }

  async run(_: string[], o: JsonOption & { username?: string }): Promise<void> {
    const views = (await this.credentials.list(o.username)).map(credentialView);
    if (o.json) return printJson({ credentials: views });
    printTable(views, [
      ['system_id', 'SYSTEM_ID'],
      ['username', 'USERNAME'],
      ['mode', 'MODE'],
      ['status', 'STATUS'],
      ['max_binds', 'MAX_BINDS'],
      ['tps', 'TPS'],
      ['allowed_ips', 'ALLOWED_IPS'],
    ]);
  }

  @Option({ flags: '--username <username>', description: "only this account's credentials" })
  parseUsername(v: string): string {
    return v;
  }
}

@SubCommand({
  name: 'revoke',
  arguments: '<system-id>',
  description: 'revoke an SMPP credential for good; its binds are unbound',
})
export class SmppCredentialsRevokeCommand extends CliCommand {
  constructor(
    private readonly credentials: SmppCredentialsService,
    private readonly binds: BindRegistry,
  ) {
    super();
  }

  async run([systemId]: string[], o: JsonOption): Promise<void> {
    const c = await this.credentials.revoke(systemId!);
    await this.binds.kick(c.id);
    const view = credentialView(c);
    if (o.json) return printJson(view);
    printLine(`Revoked SMPP credential ${view.system_id}; its binds are being unbound.`);
  }
}

@SubCommand({
  name: 'password',
  arguments: '<system-id>',
  description: 'give an SMPP credential a new password; prints it once (binds already made stay)',
})
export class SmppCredentialsPasswordCommand extends CliCommand {
  constructor(private readonly credentials: SmppCredentialsService) {
    super();
  }

  async run([systemId]: string[], o: JsonOption): Promise<void> {
    const { credential, password } = await this.credentials.newPassword(systemId!);
    printWithPassword(credential, password, o.json, 'New password for');
  }
}

@SubCommand({
  name: 'update',
  arguments: '<system-id>',
  description: "change an SMPP credential's allow list, max binds or TPS (new binds see it)",
})
export class SmppCredentialsUpdateCommand extends CredentialOptions {
  constructor(private readonly credentials: SmppCredentialsService) {
    super();
  }

  async run(
    [systemId]: string[],
    o: JsonOption & { allowIp?: string[]; clearAllowIp?: boolean; maxBinds?: number; tps?: number },
  ): Promise<void> {
    if (o.allowIp && o.clearAllowIp)
      throw new UsageError('--allow-ip and --clear-allow-ip cannot be used together');
    const changes: UpdateSmppCredentialInput = {};
    if (o.allowIp) changes.allowedIps = o.allowIp;
    if (o.clearAllowIp) changes.allowedIps = null;
    if (o.maxBinds !== undefined) changes.maxBinds = o.maxBinds;
    if (o.tps !== undefined) changes.tps = o.tps;
    if (Object.keys(changes).length === 0)
      throw new UsageError('nothing to change: give --allow-ip, --clear-allow-ip, --max-binds or --tps');
    const view = credentialView(await this.credentials.update(systemId!, changes));
    if (o.json) return printJson(view);
    printCredential(view);
  }

  @Option({ flags: '--clear-allow-ip', description: 'accept binds from anywhere' })
  parseClearAllowIp(): boolean {
    return true;
  }
}

const CREDENTIAL_COMMANDS = [
  SmppCredentialsCreateCommand,
  SmppCredentialsListCommand,
  SmppCredentialsRevokeCommand,
  SmppCredentialsPasswordCommand,
  SmppCredentialsUpdateCommand,
];

@SubCommand({
  name: 'credentials',
  description: 'SMPP credentials of accounts',
  subCommands: CREDENTIAL_COMMANDS,
})
export class SmppCredentialsCommand extends CommandGroup {}

/** How long `binds kick` waits for the binds to be gone from every process. */
const KICK_WAIT_MS = 10_000;

@SubCommand({ name: 'list', description: 'list live SMPP binds on every API process' })
export class SmppBindsListCommand extends CliCommand {
  constructor(
    private readonly credentials: SmppCredentialsService,
    private readonly binds: BindRegistry,
  ) {
    super();
  }

  async run(_: string[], o: JsonOption & { username?: string }): Promise<void> {
    let binds = await this.binds.list();
    if (o.username) {
      const ids = new Set((await this.credentials.list(o.username)).map((c) => c.id));
      binds = binds.filter((b) => ids.has(b.credentialId));
    }
    const views = binds.map((b) => ({
      system_id: b.systemId,
      type: b.type,
      address: b.address,
      since: b.since,
      process: b.process,
    }));
    if (o.json) return printJson({ binds: views });
    printTable(views, [
      ['system_id', 'SYSTEM_ID'],
      ['type', 'TYPE'],
      ['address', 'ADDRESS'],
      ['since', 'SINCE'],
      ['process', 'PROCESS'],
    ]);
  }

  @Option({ flags: '--username <username>', description: "only this account's binds" })
  parseUsername(v: string): string {
    return v;
  }
}

@SubCommand({
  name: 'kick',
  arguments: '<system-id>',
  description: "unbind a credential's binds on every API process (the ESME may bind again)",
})
export class SmppBindsKickCommand extends CliCommand {
  constructor(
    private readonly credentials: SmppCredentialsService,
    private readonly binds: BindRegistry,
  ) {
    super();
  }

  async run([systemId]: string[], o: JsonOption): Promise<void> {
    const c = await this.credentials.get(systemId!);
    const before = (await this.binds.list(c.id)).length;
    await this.binds.kick(c.id);
    const deadline = Date.now() + KICK_WAIT_MS;
    let left = before;
    while (left > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      left = (await this.binds.list(c.id)).length;
    }
    if (o.json) return printJson({ system_id: c.systemId, kicked: before - left, left });
    printLine(`Unbound ${before - left} bind(s) of ${c.systemId}${left ? `; ${left} still bound` : ''}.`);
  }
}

@SubCommand({
  name: 'binds',
  description: 'live SMPP binds',
  subCommands: [SmppBindsListCommand, SmppBindsKickCommand],
})
export class SmppBindsCommand extends CommandGroup {}

@Command({
  name: 'smpp',
  description: 'the SMPP server for customers: credentials and binds',
  subCommands: [SmppCredentialsCommand, SmppBindsCommand],
})
export class SmppCommand extends CommandGroup {}

export const SMPP_COMMANDS = [
  SmppCommand,
  SmppCredentialsCommand,
  ...CREDENTIAL_COMMANDS,
  SmppBindsCommand,
  SmppBindsListCommand,
  SmppBindsKickCommand,
];
