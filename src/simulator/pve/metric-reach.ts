/**
 * PVE's test of a metric server's target on every create and update, so a handler meets the refusal PVE gives a
 * target it cannot reach instead of a fake that takes any address. The fake reaches no network: a test marks a
 * target down (`failMetricTarget`), and every other target answers as a working server would.
 * Source: [PM] 14a22df PVE/API2/Cluster/MetricServer.pm:178 (create), :252 (update); PVE/Status/Plugin.pm:133-141,
 * InfluxDB.pm:215-279, Graphite.pm:97-120, OpenTelemetry.pm:665-710; [LWP] 65c6384 lib/LWP/Protocol/http.pm:36-50.
 */
import type { Value } from './validate';

/** How a marked target fails: its host:port refuses connections, or its host name does not resolve. */
export type TargetFault = 'refused' | 'unresolved';

/** The socket error each fault gives (glibc's strerror and gai_strerror texts, as IO::Socket::IP puts them in $@). */
const CAUSE: Readonly<Record<TargetFault, string>> = {
  refused: 'Connection refused',
  unresolved: 'Name or service not known',
};

// The OTel plugin's die has no newline, so Perl appends its location; the line is 707 at [PM] 14a22df.
const OTEL_AT = ' at /usr/share/perl5/PVE/Status/OpenTelemetry.pm line 707.';

/** The key a target is marked under. */
export const targetKey = (server: string, port: number): string => `${server}:${port}`;

const perlTrue = (value: Value | undefined): boolean =>
  value !== undefined && value !== '' && value !== '0' && value !== 0;

/**
 * The text PVE dies with when its test of `section`'s target fails, or undefined when the test passes or is skipped.
 * A UDP socket only opens (nothing is sent), so only a name that does not resolve fails it; TCP and HTTP connect.
 * The graphite and InfluxDB plugins skip a disabled server; the OpenTelemetry plugin tests it all the same.
 */
export const connectionRefusal = (
  section: Readonly<Record<string, Value>>,
  faultOf: (server: string, port: number) => TargetFault | undefined,
): string | undefined => {
  const { type } = section;
  const server = String(section.server);
  const port = Number(section.port);
  const fault = faultOf(server, port);
  if (fault === undefined || (type !== 'opentelemetry' && perlTrue(section.disable))) return undefined;
  const lwpStatus = `500 Can't connect to ${server}:${port} (${CAUSE[fault]})`;
  if (type === 'opentelemetry') return `Connection test failed: ${lwpStatus}${OTEL_AT}\n`;
  const proto = String(section[type === 'graphite' ? 'proto' : 'influxdbproto'] ?? 'udp');
  if (proto === 'udp' && fault === 'refused') return undefined;
  if (type === 'influxdb' && proto !== 'udp') return `${lwpStatus}\n`;
  const socket = type === 'graphite' ? 'carbon' : 'influxdb';
  return `couldn't create ${socket} socket [${server}]:${port} - ${CAUSE[fault]}\n`;
};
