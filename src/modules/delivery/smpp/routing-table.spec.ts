import { describe, expect, it } from 'vitest';
import { RoutingTable, type ConnectorRow, type RouteRow } from './routing-table.js';

const connector = (id: number, name: string, enabled = true): ConnectorRow => ({
  id,
  name,
  url: `smpp://a:b@127.0.0.1:${2775 + id}`,
  tps: 0,
  window_size: 10,
  bind_mode: 'transceiver',
  system_type: null,
  enabled: enabled ? 1 : 0,
});
let nextId = 1;
const route = (prefix: string, connectorId: number, priority = 1, account = '0'): RouteRow => ({
  id: nextId++,
  account_id: account,
  prefix,
  connector_id: connectorId,
  priority,
});

const CONNECTORS = [
  connector(1, 'mtn'),
  connector(2, 'airtel'),
  connector(3, 'zamtel'),
  connector(4, 'off', false),
];

describe('RoutingTable', () => {
  it('picks the longest matching prefix, whether the number is written with + or not', () => {
    const t = new RoutingTable(CONNECTORS, [route('260', 1), route('26097', 2)], null);
    expect(t.candidates('7', '+260971234567')).toEqual(['airtel']);
    expect(t.candidates('7', '260961234567')).toEqual(['mtn']);
  });

  it("puts an account's own route before a global one of the same length, but not before a longer global one", () => {
    const t = new RoutingTable(
      CONNECTORS,
      [route('26097', 1), route('26097', 3, 1, '7'), route('2609771', 2), route('260', 3, 1, '7')],
      null,
    );
    expect(t.candidates('7', '+260975550000')).toEqual(['zamtel']);
    expect(t.candidates('8', '+260975550000')).toEqual(['mtn']);
    expect(t.candidates('7', '+260977100000')).toEqual(['airtel']);
  });

  it('lists the connectors of one prefix in priority order (1 first) for failover', () => {
    const t = new RoutingTable(
      CONNECTORS,
      [route('260', 1, 2), route('260', 2, 1), route('260', 3, 3)],
      null,
    );
    expect(t.candidates('1', '+260971234567')).toEqual(['airtel', 'mtn', 'zamtel']);
  });

  it('ignores routes to a disabled connector', () => {
    const t = new RoutingTable(CONNECTORS, [route('260', 1), route('26097', 4)], null);
    expect(t.candidates('1', '+260971234567')).toEqual(['mtn']);
  });

  it('sends what no route matches to the default connector, and to nothing without one', () => {
    const routes = [route('260', 1)];
    expect(new RoutingTable(CONNECTORS, routes, 'default').candidates('1', '+441234567890')).toEqual([
      'default',
    ]);
    expect(new RoutingTable(CONNECTORS, routes, null).candidates('1', '+441234567890')).toEqual([]);
  });
});
