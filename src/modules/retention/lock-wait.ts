import { parseWaitSeconds } from '../../platform/cli/parsers.js';

/**
 * What `db prune`, `db archive` and `db partition` wait for the retention lock by default: a
 * worker's round of partitions ahead holds it for a second or so, a prune for as long as it runs.
 */
export const CLI_LOCK_WAIT_SECONDS = 10;

/** The `--wait <seconds>` option of the commands that take the retention lock. */
export const WAIT_OPTION = {
  flags: '--wait <seconds>',
  description: `how long to wait for the retention lock while another process holds it (default ${CLI_LOCK_WAIT_SECONDS}; 0: not at all)`,
  parse: parseWaitSeconds,
};
