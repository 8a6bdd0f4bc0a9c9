/**
 * A metric server write PVE refused because its test of the target failed (reference/pve-api.md §A1), in words that
 * say what the refusal left: a create leaves nothing, an update leaves the fields but keeps a token it was sent.
 * Without it the apply said only "PVE answered 500: 500 Can't connect …", and not that PVE had kept the new token.
 */
import type { MetricServerSpec } from './metric-server';

/**
 * The texts PVE's plugins die with when the test fails: an InfluxDB HTTP status line (LWP's `500 Can't connect …`
 * included), a graphite or InfluxDB UDP/TCP socket that could not be made, the OpenTelemetry plugin's own prefix.
 * Source: [PM] 14a22df PVE/Status/InfluxDB.pm:227, :271, Graphite.pm:110, OpenTelemetry.pm:707.
 */
const TARGET_TEST_FAILED = /^(\d{3} |couldn't create (carbon|influxdb) socket |Connection test failed: )/;

/** Whether PVE's answer `status`/`message` to a create or update is its target test failing (a plain die: 500). */
export const isTargetRefusal = (status: number, message: string): boolean =>
  status === 500 && TARGET_TEST_FAILED.test(message);

/**
 * The title and detail of such a refusal. Reasoned from MetricServer.pm: a create's failed test deletes the token
 * file and writes no section (:178-184); an update's stores the token first (on_update_hook, :250) and then writes
 * no section, so the fields are as they were and a token sent is kept.
 */
export const targetRefusal = (
  spec: MetricServerSpec,
  write: 'create' | 'update',
  pveMessage: string,
  tokenSent: boolean,
): { title: string; detail: string } => {
  const left =
    write === 'create' || !tokenSent
      ? `${write === 'create' ? '' : 'its fields are as they were; '}PVE wrote nothing`
      : 'its fields are as they were, but PVE stored the token this apply sent (PVE writes it before the test)';
  return {
    title: `Metric server "${spec.id}" was not ${write}d`,
    detail:
      `PVE's test of its target ${spec.server}:${spec.port} failed (PVE: ${pveMessage.trim()}); ${left}. ` +
      'Make the target answer from the PVE node, or declare another; then apply again',
  };
};
