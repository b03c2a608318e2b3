import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adjacency, cycles, SRC, type ImportEdge } from './folder-graph.js';
import { roomEdges } from './room-graph.js';

/**
 * Inside a feature, the folders under it (its rooms) import one way too: a room that imports
 * another which imports it back cannot be read or moved apart. The top floor (the files beside
 * the rooms) puts the rooms together in its modules, so it may import any room; a room imports
 * from the top floor only what imports no room (delivery's retry-policy.ts), never the modules
 * that gather the rooms. Sending, before the rest, enters delivery by one door: the producer
 * that queues what it accepted and the router that picks an SMSC, with the modules providing them.
 */
const features = readdirSync(join(SRC, 'modules'));
const describeEdge = (e: ImportEdge) => `${e.file} imports ${e.specifier}`;

/** Room cycles known and waiting to be untied; the list only shrinks. */
const KNOWN_ROOM_CYCLES = ['smpp-server: segments ⇄ submit'];

const DELIVERY_DOOR = [
  'dispatch/dispatch.producer.ts',
  'queue.module.ts',
  'smpp/routing.service.ts',
  'smpp/routing.module.ts',
];

describe('rooms of the feature folders', () => {
  const found = features.flatMap((feature) => {
    const edges = roomEdges(feature).filter((e) => e.from !== e.to && e.from !== '.' && e.to !== '.');
    return cycles(adjacency(edges)).map((rooms) => `${feature}: ${rooms.join(' ⇄ ')}`);
  });

  it('sees delivery and its rooms', () => {
    const rooms = new Set(roomEdges('delivery').map((e) => e.from));
    for (const room of ['.', 'dispatch', 'receipts', 'lifecycle', 'scheduling', 'recovery', 'smpp'])
      expect(rooms.has(room), room).toBe(true);
  });

  it('has no cycle between the rooms of a feature but the known ones', () => {
    const fresh = found.filter((c) => !KNOWN_ROOM_CYCLES.includes(c));
    expect(fresh, fresh.join('\n')).toEqual([]);
  });

  it('keeps the list of known room cycles to cycles that still exist', () => {
    const gone = KNOWN_ROOM_CYCLES.filter((c) => !found.includes(c));
    expect(gone, `no longer cycles, remove from the list:\n${gone.join('\n')}`).toEqual([]);
  });

  it("lets a delivery room import from delivery's top floor only files that import no room", () => {
    const edges = roomEdges('delivery');
    const gathering = new Set(edges.filter((e) => e.from === '.' && e.to !== '.').map((e) => e.file));
    const up = edges
      .filter((e) => e.from !== '.' && e.to === '.')
      .filter((e) => gathering.has(`modules/delivery/${e.specifier}`))
      .map(describeEdge);
    expect(up, up.join('\n')).toEqual([]);
  });

  it('lets sending import delivery only through the producer and the router', () => {
    const edges = roomEdges('sending', 'delivery').filter((e) => !DELIVERY_DOOR.includes(e.specifier));
    expect(edges.map(describeEdge), edges.map(describeEdge).join('\n')).toEqual([]);
  });
});
