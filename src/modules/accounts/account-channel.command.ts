import { Option } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { parseChannel, type Channel } from './channel.js';

/** An admin command about one channel of one account: `--username` and `--channel`, both required. */
export abstract class AccountChannelCommand extends CliCommand {
  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--channel <channel>', description: 'sms, email or chat', required: true })
  parseChannel(v: string): Channel {
    return parseChannel(v);
  }
}
