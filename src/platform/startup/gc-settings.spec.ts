import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, flagsToSet } from './gc-settings.js';

describe('gc settings', () => {
  it('caps the heap growth and turns allocation-site pretenuring off by default', () => {
    expect(flagsToSet([])).toEqual([
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
      '--no-allocation-site-pretenuring',
    ]);
  });

  it('leaves a flag the command line sets, either way and in either spelling, to the command line', () => {
    expect(flagsToSet(['--heap-growing-percent=80'])).toEqual(['--no-allocation-site-pretenuring']);
    expect(flagsToSet(['--allocation-site-pretenuring'])).toEqual([
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    ]);
    expect(flagsToSet(['--no_allocation_site_pretenuring', '--heap_growing_percent=0'])).toEqual([]);
    expect(flagsToSet(['--cpu-prof', '--import', 'x.js'])).toHaveLength(2);
  });
});
