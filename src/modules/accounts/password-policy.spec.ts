import { describe, expect, it } from 'vitest';
import { passwordProblem } from './password-policy.js';

describe('passwordProblem', () => {
  it('refuses short passwords', () => {
    expect(passwordProblem('password')).toMatch(/at least 10/);
    expect(passwordProblem('12345678')).toMatch(/at least 10/);
    expect(passwordProblem('Xk9#mQ2z')).toMatch(/at least 10/);
  });

  it('refuses common passwords dressed up with case, digits, symbols, leetspeak or repetition', () => {
    for (const p of [
      'password123',
      'Password123!',
      'P@ssw0rd2024',
      'qwertyuiop',
      'qwertyqwerty',
      '1234567890',
      '9876543210',
      '0000000000',
      'letmein!!!!',
      'iloveyou12',
      'adminadmin1',
      'abcdefghij',
    ])
      expect(passwordProblem(p), p).toMatch(/too common|too simple/);
  });

  it('refuses a password containing the username, and control characters', () => {
    expect(passwordProblem('alice-the-great', 'alice')).toMatch(/username/);
    expect(passwordProblem('good-long\npassphrase')).toMatch(/control characters/);
  });

  it('accepts a long passphrase and a random string', () => {
    expect(passwordProblem('correct-horse-battery', 'alice')).toBeNull();
    expect(passwordProblem('Xk9#mQ2z!Lp4')).toBeNull();
    expect(passwordProblem('bench-password-1')).toBeNull();
  });
});
