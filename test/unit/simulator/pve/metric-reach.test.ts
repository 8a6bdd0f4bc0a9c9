/**
 * The fake PVE's test of a metric server's target, as a truth table over type, protocol, `disable` and fault, so the
 * fake refuses exactly the writes PVE's plugins refuse ([PM] 14a22df PVE/Status/*.pm test_connection).
 */
import { connectionRefusal, type TargetFault } from '../../../../src/simulator/pve/metric-reach';

const at = (fault: TargetFault | undefined) => () => fault;
const target = { server: 'h', port: 1 };

test.each([
  [{ type: 'influxdb' }, 'refused', undefined],
  [{ type: 'influxdb' }, 'unresolved', "couldn't create influxdb socket [h]:1 - Name or service not known\n"],
  [{ type: 'influxdb', influxdbproto: 'http' }, 'refused', "500 Can't connect to h:1 (Connection refused)\n"],
  [{ type: 'influxdb', influxdbproto: 'https', disable: 1 }, 'refused', undefined],
  [
    { type: 'influxdb', influxdbproto: 'https', disable: 0 },
    'refused',
    "500 Can't connect to h:1 (Connection refused)\n",
  ],
  [{ type: 'graphite' }, 'refused', undefined],
  [{ type: 'graphite', proto: 'tcp' }, 'refused', "couldn't create carbon socket [h]:1 - Connection refused\n"],
  [{ type: 'graphite', proto: 'tcp', disable: '1' }, 'unresolved', undefined],
  [
    { type: 'opentelemetry', disable: 1 },
    'unresolved',
    "Connection test failed: 500 Can't connect to h:1 (Name or service not known) at " +
      '/usr/share/perl5/PVE/Status/OpenTelemetry.pm line 707.\n',
  ],
  [{ type: 'opentelemetry' }, undefined, undefined],
] as const)('%j at a target %s: PVE dies with %j', (section, fault, text) => {
  expect(connectionRefusal({ ...target, ...section }, at(fault))).toBe(text);
});
