import 'reflect-metadata';
import { IsString } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { AppValidationPipe } from './app-validation.pipe.js';
import { PassThrough } from './pass-through.js';

class Base {
  @PassThrough()
  map?: Record<string, unknown>;
}

class Body extends Base {
  @IsString()
  name: string;
}

const pipe = new AppValidationPipe();
const run = (value: unknown) => pipe.transform(value, { type: 'body', metatype: Body });

describe('PassThrough fields in AppValidationPipe', () => {
  it('hands an inherited pass-through field over as the very same object, next to the validated ones', async () => {
    const map = { a: { b: 'c' } };
    const out = (await run({ name: 'x', map, extra: 1 })) as Body & { extra?: number };
    expect(out).toBeInstanceOf(Body);
    expect(out.map).toBe(map);
    expect(out.name).toBe('x');
    expect(out.extra).toBeUndefined(); // the whitelist still applies to everything else
  });

  it('still refuses a bad validated field when a pass-through field is present', async () => {
    await expect(run({ name: 5, map: {} })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('leaves an absent field undefined, as the class declared it: the whitelist does not delete it', async () => {
    const out = (await run({ name: 'x' })) as Body;
    expect(out.map).toBeUndefined();
    // Deleting the declared field would turn every instance into a dictionary-mode object.
    expect(Object.hasOwn(out, 'map')).toBe(true);
  });
});
