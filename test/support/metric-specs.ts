/**
 * The metric server specs several contract tests declare, stated once so their tests of the same server cannot
 * drift apart (an influx spec in one file and a different one in another, each test passing on its own).
 */

/** An InfluxDB server over https at 10.0.0.5:8089 whose token is in INFLUX_TOKEN. */
export const INFLUX_HTTPS = {
  id: 'influx',
  type: 'influxdb',
  server: '10.0.0.5',
  port: 8089,
  options: { influxdbproto: 'https', bucket: 'pve' },
  tokenEnv: 'INFLUX_TOKEN',
};

/** An OpenTelemetry server at c:4318 whose headers are in OTEL_HEADERS. */
export const OTEL_HEADERS = {
  id: 'otel',
  type: 'opentelemetry',
  server: 'c',
  port: 4318,
  options: {},
  otelHeadersEnv: 'OTEL_HEADERS',
};
