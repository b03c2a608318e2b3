import { describe, expect, it } from 'vitest';
import { creditsOf, isPositive, parseAmount, priceOf, sum } from './money.js';

describe('money', () => {
  it.each([
    ['0.25', 1, '0.250000'],
    ['0.1', 3, '0.300000'],
    ['0.333333', 6, '1.999998'],
    ['1.25', 15750, '19687.500000'],
    ['0', 10, '0.000000'],
  ])('prices %s × %i units as %s exactly', (price, units, expected) => {
    expect(priceOf(price, units)).toBe(expected);
  });

  it.each([
    ['19687.5', '1.25', 15750],
    ['10.1', '0.03', 336],
    ['0.3', '0.1', 3],
    ['0.2999999', '0.1', 2],
    ['5', '0', 0],
  ])('gives %s / %s = %i credits, rounded down', (balance, price, credits) => {
    expect(creditsOf(balance, price)).toBe(credits);
  });

  it('prices the same price and units the same way again (remembered)', () => {
    expect(priceOf('0.1', 3)).toBe('0.300000');
    expect(priceOf('0.1', 3)).toBe('0.300000');
    expect(priceOf('0.10', 3)).toBe('0.300000');
  });

  it('sums without floating-point error', () => {
    expect(sum(['0.1', '0.2'])).toBe('0.300000');
  });

  it.each([
    [['0.250000'], '0.250000'],
    [['0.25'], '0.250000'],
    [['007.000000'], '7.000000'],
    [['1e2'], '100.000000'],
    [[], '0.000000'],
  ])('sums %j as %s', (values, expected) => {
    expect(sum(values)).toBe(expected);
  });

  it.each([
    ['0.000001', true],
    ['0.000000', false],
    ['0', false],
    ['000.000', false],
    ['12', true],
    ['10.5', true],
    ['-0.5', false],
    ['-0', false],
    ['1e-7', true],
    ['0e5', false],
    ['+3', true],
  ])('finds %s positive: %s', (value, expected) => {
    expect(isPositive(value)).toBe(expected);
  });

  it.each([
    ['100.00', '100.000000'],
    ['0.000001', '0.000001'],
    ['1.0000001', null],
    ['-5', null],
    ['1e3', null],
    ['abc', null],
  ])('parses the amount %s as %s', (text, expected) => {
    expect(parseAmount(text)).toBe(expected);
  });
});
