import { describe, expect, it } from 'vitest';
import { helpPath, type HelpSnapshot } from './help-snapshot.js';

const snapshot: HelpSnapshot = {
  texts: { '': 'root', accounts: 'a', 'accounts create': 'ac' },
  groups: ['accounts'],
};

describe('helpPath', () => {
  it('answers the help a command line asks for, and whether it is a usage error', () => {
    expect(helpPath([], snapshot)).toEqual({ path: '', usageError: true });
    expect(helpPath(['--help'], snapshot)).toEqual({ path: '', usageError: false });
    expect(helpPath(['help'], snapshot)).toEqual({ path: '', usageError: false });
    expect(helpPath(['help', 'accounts'], snapshot)).toEqual({ path: 'accounts', usageError: false });
    expect(helpPath(['accounts'], snapshot)).toEqual({ path: 'accounts', usageError: true });
    expect(helpPath(['accounts', '-h'], snapshot)).toEqual({ path: 'accounts', usageError: false });
    expect(helpPath(['accounts', 'create', '--help'], snapshot)).toEqual({
      path: 'accounts create',
      usageError: false,
    });
  });

  it('leaves every other command line to the full CLI', () => {
    for (const args of [
      ['accounts', 'list'],
      ['accounts', 'nope', '--help'],
      ['accounts', 'create', '--username', 'x', '--help'],
      ['nope'],
      ['help', 'nope'],
      ['--version'],
    ])
      expect(helpPath(args, snapshot), args.join(' ')).toBeNull();
  });
});
