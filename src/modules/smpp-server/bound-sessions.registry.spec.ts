import { describe, expect, it } from 'vitest';
import { BoundSessions, type BindType, type BoundSession } from './bound-sessions.registry.js';

function session(id: string, credentialId: number, bindType: BindType): BoundSession {
  return {
    id,
    systemId: `sys${credentialId}`,
    credentialId,
    accountId: 1,
    mode: 'live',
    bindType,
    remoteAddress: '127.0.0.1',
    since: new Date(),
    deliverSm: () => Promise.resolve(0),
    close: () => Promise.resolve(),
  };
}

describe('BoundSessions', () => {
  it('lists as receivers only receiver and transceiver binds of the credential', () => {
    const bound = new BoundSessions();
    bound.add(session('a', 1, 'transmitter'));
    bound.add(session('b', 1, 'receiver'));
    bound.add(session('c', 1, 'transceiver'));
    bound.add(session('d', 2, 'receiver'));
    expect(bound.receivers(1).map((s) => s.id)).toEqual(['b', 'c']);
    expect(bound.all()).toHaveLength(4);
  });

  it('tells its listeners of each bind and of each session gone', () => {
    const bound = new BoundSessions();
    const heard: string[] = [];
    bound.onBound((s) => heard.push(`bound ${s.id}`));
    bound.onUnbound((s) => heard.push(`gone ${s.id}`));
    bound.add(session('a', 1, 'receiver'));
    bound.remove('a');
    bound.remove('a');
    expect(heard).toEqual(['bound a', 'gone a']);
    expect(bound.receivers(1)).toEqual([]);
  });
});
