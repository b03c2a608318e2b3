import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { CallbackStore } from '../callbacks/callback.store.js';
import { WebhookDeliveryStore } from '../callbacks/webhooks/webhook-delivery.store.js';

@SubCommand({
  name: 'hash-outbox',
  description:
    'give kept callback events and logged webhook events their recipient hash, by which an erasure finds them (--all: every event, after SERVER_SECRET changed)',
})
export class DbHashOutboxCommand extends CliCommand {
  constructor(
    private readonly callbacks: CallbackStore,
    private readonly deliveries: WebhookDeliveryStore,
  ) {
    super();
  }

  async run(_: string[], o: { json?: boolean; all?: boolean }): Promise<void> {
    const hashed = await this.callbacks.hashRecipients(o.all === true);
    const logged = await this.deliveries.hashRecipients(o.all === true);
    if (o.json) return printJson({ hashed, webhook_deliveries: logged });
    printLine(`${hashed} callback event(s) and ${logged} webhook delivery log row(s) given a recipient hash`);
  }

  @Option({ flags: '--all', description: 'every kept or logged event, not only those without a hash' })
  parseAll(): boolean {
    return true;
  }
}
