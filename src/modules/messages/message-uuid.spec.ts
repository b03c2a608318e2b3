import { describe, expect, it } from 'vitest';
import { idOfUuid, uuidOfId } from './message-uuid.js';

describe('message UUIDs', () => {
  it('makes a version 7 UUID whose time is the id’s millisecond, and reads the id back', () => {
    for (const id of [
      '1764184470578998353',
      '1764184470578000000',
      '1764184470578999999',
      '1764184470579001000',
    ]) {
      const uuid = uuidOfId(id);
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(uuid.replace(/-/g, '').slice(0, 12), 16)).toBe(Number(id.slice(0, 13)));
      expect(idOfUuid(uuid)).toBe(id);
    }
  });

  it('gives distinct ids distinct UUIDs, and one id a fresh random tail each time', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `1764184470578${String(i * 499).padStart(6, '0')}`);
    expect(new Set(ids.map(uuidOfId)).size).toBe(ids.length);
    expect(uuidOfId(ids[0])).not.toBe(uuidOfId(ids[0]));
  });

  it('reads no id from a UUID that cannot carry one', () => {
    expect(idOfUuid('3b241101-e2bb-4255-8caf-4136c566a962')).toBeUndefined();
    expect(idOfUuid('not-a-uuid')).toBeUndefined();
    expect(idOfUuid('00000000-0000-7fff-bfff-ffffffffffff')).toBeUndefined();
  });
});
