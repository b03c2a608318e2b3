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
    const out = (await run({ name: 'x', map })) as Body;
    expect(out).toBeInstanceOf(Body);
    expect(out.map).toBe(map);
    expect(out.name).toBe('x');
  });

  it('refuses a body field the class does not declare, naming it, even beside a pass-through field', async () => {
    await expect(run({ name: 'x', map: {}, sendAt: '2027-01-01T09:00:00Z' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The request is not valid: unknown field sendAt.',
      details: [{ field: 'sendAt', message: 'unknown field' }],
    });
    await expect(run({ name: 'x', a: 1, b: 2 })).rejects.toMatchObject({
      details: [
        { field: 'a', message: 'unknown field' },
        { field: 'b', message: 'unknown field' },
      ],
    });
  });

  it('still only strips an undeclared query parameter', async () => {
    const out = (await pipe.transform(
      { name: 'x', extra: '1' },
      { type: 'query', metatype: Body },
    )) as Body & {
      extra?: string;
    };
    expect(out.name).toBe('x');
    expect(out.extra).toBeUndefined();
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
