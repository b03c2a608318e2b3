import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { printJson, printTable } from '../../platform/cli/output.js';
import { parseLimit } from '../../platform/cli/parsers.js';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { RequestLogStore } from './request-log.store.js';

interface JsonOption {
  json?: boolean;
}

/** `keys logs`, a subcommand of the admin CLI's `keys` command. */
@SubCommand({ name: 'logs', arguments: '<id>', description: "a key's most recent requests, newest first" })
export class KeysLogsCommand extends CliCommand {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly logs: RequestLogStore,
  ) {
    super();
  }

  async run([id]: string[], o: JsonOption & { limit?: number }): Promise<void> {
    const key = await this.keys.get(id);
    const logs = await this.logs.forKey(key.id, o.limit ?? 50);
    if (o.json) return printJson({ key_id: key.id, logs });
    printTable(logs, [
      ['created_at', 'TIME'],
      ['method', 'METHOD'],
      ['path', 'PATH'],
      ['status', 'STATUS'],
      ['repeat_count', 'COUNT'],
      ['duration_ms', 'MS'],
      ['ip', 'IP'],
      ['request_id', 'REQUEST_ID'],
    ]);
  }

  @Option({ flags: '--limit <n>', description: 'how many, 1-1000 (default 50)' })
  parseLimit(v: string): number {
    return parseLimit(v);
  }
}
