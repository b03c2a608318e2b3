import { describe, expect, it } from 'vitest';
import { normaliseKeyword, optKeyword, words } from './keywords.js';

describe('inbound keywords', () => {
  it('reads the first word in any case with the punctuation around it ignored', () => {
    expect(words('  "Stop!" please')).toEqual(['STOP', 'PLEASE']);
    expect(optKeyword(words('stop.')[0])).toBe('STOP');
    expect(optKeyword(words('...UnSubscribe')[0])).toBe('STOP');
  });

  it('maps every opt-out word to STOP, every opt-in word to START, and HELP to HELP', () => {
    for (const w of ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'])
      expect(optKeyword(w)).toBe('STOP');
    for (const w of ['START', 'UNSTOP', 'YES']) expect(optKeyword(w)).toBe('START');
    expect(optKeyword('HELP')).toBe('HELP');
  });

  it('does not take a word that merely starts like a keyword', () => {
    expect(optKeyword(words('stopping by later')[0])).toBeNull();
    expect(optKeyword(words('')[0])).toBeNull();
  });

  it('stores short-code keywords as upper-case letters and digits only', () => {
    expect(normaliseKeyword(' acme ')).toBe('ACME');
    expect(normaliseKeyword('two words')).toBeNull();
    expect(normaliseKeyword('')).toBeNull();
  });
});
