import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster, type ProxmoxClusterProps } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer, type ProxmoxMetricServerProps } from '../../../../constructs/pve/metric-server';
import { entryOf, parsedEntry, pendingOf, recordedFound } from '../batch-apply';

const stackWith = (server: Partial<ProxmoxMetricServerProps> = {}, cluster: Partial<ProxmoxClusterProps> = {}) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'], ...cluster });
  new ProxmoxMetricServer(stack, 'm', {
    cluster: pve,
    id: 'influx',
    type: 'influxdb',
    server: '10.0.0.5',
    port: 8089,
    ...server,
  });
  return JSON.parse(Testing.synth(stack));
};

describe('ProxmoxMetricServer', () => {
  test('all defaults: only id, type, server and port reach the spec, with the default token variable', () => {
    const synth = stackWith();
    expect(parsedEntry(synth, 'pve', 'm')).toEqual({
      kind: 'metric-server',
      spec: {
        id: 'influx',
        type: 'influxdb',
        server: '10.0.0.5',
        port: 8089,
        options: {},
      },
    });
    expect(JSON.parse(synth.resource.terraform_data.pve_apply.input.target)).toEqual({
      endpoints: ['https://n1:8006'],
      tokenEnv: 'PROXMOX_VE_API_TOKEN',
    });
    expect(synth.resource.terraform_data.m_resend).toBeUndefined();
    expect(JSON.parse(synth.resource.terraform_data.m_lifecycle.input.split('\n')[1]).identity).toEqual({
      id: 'influx',
      type: 'influxdb',
    });
  });

  test('ownership is kept in the state: the lifecycle records once what the read found; the apply refuses it', () => {
    const synth = stackWith();
    const lifecycle = synth.resource.terraform_data.m_lifecycle;
    // One text, what the read found, a newline and the object's JSON: less state than an object.
    expect(lifecycle.input).toBe(
      '${lookup(local.pve_found, "m", "")}\n{"identity":{"id":"influx","type":"influxdb"},"target":"pve"}',
    );
    expect(lifecycle.provisioner[0]['local-exec'].environment.HOMELAB_ADOPT).toBeUndefined();
    expect(synth.locals.pve_found).toBe(
      '${merge({}, [for text, names in jsondecode(lookup(data.external.pve_read.result, ".found", "{}")) : ' +
        '{ for name in names : name => text }]...)}',
    );
    expect(lifecycle.lifecycle.ignore_changes).toEqual(['input']);
    const entry = entryOf(synth, 'pve', 'm');
    expect(entry.found).toBe(recordedFound('m'));
    // drifted while its lifecycle's record says it was found: the read cannot see that record
    expect(entry.pending).toBe(pendingOf('pve', 'm'));
    // Each record is named once, in local.pve_recorded; the drifted list and the refused lines iterate it.
    expect(synth.locals.pve_recorded).toBe(`\${{ "m" = ${recordedFound('m')} }}`);
    expect(synth.locals.pve_drifted).toBe(
      '${distinct(compact(concat(split(",", lookup(data.external.pve_read.result, ".drifted", "m")), ' +
        '[for name, found in local.pve_recorded : name if found != ""])))}',
    );
    // The plan's check names it while its lifecycle's record refuses it, beside the read's summary; its lines
    // sit in one local, so a failed check prints one value, not one per object.
    const [check] = synth.check.pve_in_sync.assert;
    expect(check.condition).toBe('${data.external.pve_read.result[".in_sync"] == "true" && local.pve_refused == ""}');
    // The refused lines under a count of their own: the read's count is of its own lines (issue 29).
    expect(check.error_message).toContain(
      'local.pve_refused == "" ? "" : join("\\n", [format("the apply will refuse %d of the %d objects, which ' +
        'existed before this stack declared them:", length(split("\\n", local.pve_refused)), 1), local.pve_refused])',
    );
    expect(synth.locals.pve_refused).toBe(
      '${join("\\n", [for name, found in local.pve_recorded : "- ${name}: ${found}" if found != ""])}',
    );
    // A refused object's line says the apply will refuse it: the footer then promises convergence to no line.
    expect(check.error_message).toContain(
      '${lookup(data.external.pve_read.result, ".converges", "false") == "true" && local.pve_refused == "" ? ',
    );
  });

  test('the lifecycle is created only after the apply rechecked what its plan read absent, from one key', () => {
    const synth = stackWith();
    // An object read absent records nothing found: the recheck fails, before it, when it exists now.
    expect(synth.resource.terraform_data.m_lifecycle.depends_on).toEqual(['data.external.pve_recheck']);
    expect(synth.locals.pve_absent).toBe('${lookup(data.external.pve_read.result, ".absent", "")}');
    const recheck = synth.data.external.pve_recheck;
    const bundle = synth.data.external.pve_read.program[1];
    // No object read absent: sh answers at plan time, no Node process (issue 30).
    expect(recheck.program).toBe(
      '${local.pve_absent == "" ? ["sh", "-c", "cat >/dev/null; echo {}"] : ' +
        `["node", "${bundle}", "batch", "recheck"]}`,
    );
    // Some: the query is unknown until the apply, which reads it then, the read's query and the names to check.
    expect(recheck.query).toBe(
      '${local.pve_absent == "" ? {} : (replace(timestamp(), "/.*/", "") == "" ? ' +
        'merge(data.external.pve_read.query, { ".recheck" = local.pve_absent }) : {})}',
    );
    // The batch apply refuses one that appeared after the recheck: it gets the names too.
    expect(synth.resource.terraform_data.pve_apply.input.absent).toBe('${local.pve_absent}');
  });

  test('with adopt the lifecycle records adopt and the entry neither carries found nor waits on it', () => {
    const synth = stackWith({ adopt: true });
    // The lifecycle keeps its input as created: the destroy hook carries adopt from the configuration.
    const hook = synth.resource.terraform_data.m_lifecycle.provisioner[0]['local-exec'];
    expect(hook.environment.HOMELAB_ADOPT).toBe('true');
    const entry = entryOf(synth, 'pve', 'm');
    expect(entry.found).toBeUndefined();
    expect(entry.pending).toBe(pendingOf('pve', 'm'));
    expect(synth.locals.pve_drifted).toBe(
      '${compact(split(",", lookup(data.external.pve_read.result, ".drifted", "m")))}',
    );
    expect(JSON.parse(entry.text)).toMatchObject({ adopt: true });
    expect(synth.check.pve_in_sync.assert[0].condition).toBe('${data.external.pve_read.result[".in_sync"] == "true"}');
    expect(synth.locals.pve_refused).toBeUndefined();
    expect(synth.locals.pve_recorded).toBeUndefined();
  });

  test('props map to PVE parameter names, and secrets appear only as variable names', () => {
    const synth = stackWith({
      apiPathPrefix: '/influx',
      verifyCertificate: false,
      tokenEnv: 'INFLUX_TOKEN',
      tokenVersion: 2,
    });
    const { spec } = parsedEntry(synth, 'pve', 'm');
    expect(spec.options).toEqual({ 'api-path-prefix': '/influx', 'verify-certificate': false });
    expect(spec).toMatchObject({ tokenEnv: 'INFLUX_TOKEN' });
  });

  test('otel resource attributes are sent the way PVE stores them, base64 JSON', () => {
    const synth = stackWith({ type: 'opentelemetry', port: 4318, otelResourceAttributes: { env: 'lab' } });
    const { spec } = parsedEntry<{ options: Record<string, string> }>(synth, 'pve', 'm');
    expect(JSON.parse(Buffer.from(spec.options['otel-resource-attributes'] ?? '', 'base64').toString())).toEqual({
      env: 'lab',
    });
  });

  test('tokenVersion adds m_resend, replaced by the version, whose hook applies this server alone', () => {
    const resend = stackWith({ tokenEnv: 'INFLUX_TOKEN', tokenVersion: 3 }).resource.terraform_data.m_resend;
    expect(resend.triggers_replace).toEqual({ resendOn: 3 });
    expect(resend.depends_on).toEqual(['terraform_data.pve_apply']);
    expect(JSON.parse(resend.input.spec)).toMatchObject({ id: 'influx', tokenEnv: 'INFLUX_TOKEN' });
    expect(resend.provisioner[0]['local-exec'].command).toMatch(/^node ".*pve\.js" "\$HOMELAB_KIND" apply$/);
    expect(resend.provisioner[0]['local-exec'].environment.HOMELAB_KIND).toBe('metric-server');
  });

  test('a tokenVersion bump moves only m_resend: the spec leaves it out, so the batch apply is not replaced', () => {
    const at = (tokenVersion: number) => stackWith({ tokenEnv: 'INFLUX_TOKEN', tokenVersion });
    expect(parsedEntry(at(4), 'pve', 'm')).toEqual(parsedEntry(at(3), 'pve', 'm'));
    expect(parsedEntry(at(3), 'pve', 'm').spec).not.toHaveProperty('tokenVersion');
    expect(at(4).resource.terraform_data.m_resend.triggers_replace).toEqual({ resendOn: 4 });
  });

  test.each<[string, Partial<ProxmoxMetricServerProps>]>([
    ['a server without tokenEnv', { type: 'opentelemetry', port: 4318, otelHeadersEnv: 'OTEL_HEADERS' }],
    ['a token without tokenVersion', { tokenEnv: 'INFLUX_TOKEN' }],
  ])('%s has no m_resend, only its lifecycle and the batch apply', (_, props) => {
    expect(Object.keys(stackWith(props).resource.terraform_data).sort()).toEqual(['m_lifecycle', 'pve_apply']);
  });

  test.each<[string, Partial<ProxmoxMetricServerProps>, RegExp]>([
    ['an id that is not a pve-configid', { id: '1st' }, /m: id must be a pve-configid .*, got "1st"/],
    ['a one-letter id', { id: 'a' }, /id must be a pve-configid/],
    ['a port of 0', { port: 0 }, /port must be an integer from 1 to 65536, got 0/],
    ['a port above 65536', { port: 65537 }, /port must be an integer from 1 to 65536, got 65537/],
    ['a fractional port', { port: 80.5 }, /port must be an integer/],
    ['an mtu below 512', { mtu: 511 }, /mtu must be an integer from 512 to 65536, got 511/],
    ['an mtu above 65536', { mtu: 70000 }, /mtu must be an integer from 512 to 65536/],
    ['a negative timeout', { timeout: -1 }, /timeout must be an integer of at least 0, got -1/],
    [
      'a graphite path on an influxdb server',
      { path: 'proxmox' },
      /path must be left unset for a influxdb server \(only graphite servers have it\)/,
    ],
    ['a graphite proto on an influxdb server', { proto: 'tcp' }, /proto must be left unset for a influxdb server/],
    ['an otel field on an influxdb server', { otelPath: '/v1' }, /otelPath must be left unset for a influxdb server/],
    [
      'an influx field on a graphite server',
      { type: 'graphite', bucket: 'b' },
      /bucket must be left unset for a graphite server/,
    ],
    [
      'mtu on an opentelemetry server',
      { type: 'opentelemetry', mtu: 1500 },
      /mtu must be left unset for a opentelemetry server/,
    ],
    [
      'a token on a graphite server',
      { type: 'graphite', tokenEnv: 'T' },
      /tokenEnv must be left unset for a graphite server/,
    ],
    [
      'otel headers on an influxdb server',
      { otelHeadersEnv: 'H' },
      /otelHeadersEnv must be left unset for a influxdb server/,
    ],
    [
      'a token value instead of a variable name',
      { tokenEnv: 'my-secret-token!' },
      /tokenEnv must be the name of an environment variable/,
    ],
    ['tokenVersion without tokenEnv', { tokenVersion: 1 }, /tokenVersion must be set only together with tokenEnv/],
    [
      'an unknown influxdb protocol',
      { influxdbproto: 'tcp' as never },
      /influxdbproto must be one of udp, http, https, got "tcp"/,
    ],
    ['an unknown type', { type: 'prometheus' as never }, /type must be one of graphite, influxdb, opentelemetry/],
    ['a malformed graphite path', { type: 'graphite', path: 'a..b' }, /path must be dot-separated words/],
    [
      'an otel timeout of 11',
      { type: 'opentelemetry', otelTimeout: 11 },
      /otelTimeout must be an integer from 1 to 10/,
    ],
    [
      'an otel max body below 1024',
      { type: 'opentelemetry', otelMaxBodySize: 10 },
      /otelMaxBodySize must be an integer of at least 1024/,
    ],
    ['a server with spaces', { server: 'a b' }, /server must be an IP address or DNS name/],
    ['max-body-size of 0', { maxBodySize: 0 }, /maxBodySize must be an integer of at least 1/],
  ])('rejects %s at synth', (_, props, message) => {
    expect(() => stackWith(props)).toThrow(message);
  });
});

describe('ProxmoxCluster', () => {
  test.each<[string, Partial<ProxmoxClusterProps>, RegExp]>([
    ['no endpoints', { endpoints: [] }, /pve: endpoints must be a non-empty list/],
    ['an endpoint that is not a URL', { endpoints: ['n1:8006'] }, /endpoints must be http\(s\) URLs/],
    [
      'duplicate endpoints',
      { endpoints: ['https://a:8006', 'https://a:8006'] },
      /endpoints must be free of duplicates/,
    ],
    [
      'a pin for an unknown endpoint',
      { fingerprints: { 'https://x:8006': 'AA' } },
      /fingerprints must be keyed by one of the endpoints/,
    ],
    [
      'a pin that is not a sha256',
      { fingerprints: { 'https://n1:8006': 'AA:BB' } },
      /fingerprints\["https:\/\/n1:8006"\] must be a SHA-256 fingerprint/,
    ],
    [
      'insecure together with a CA file',
      { caFile: '/ca.pem', insecure: true },
      /insecure must be left unset when caFile or fingerprints is given/,
    ],
    [
      'a token given where its variable name belongs',
      { tokenEnv: 'root@pam!x=secret' },
      /tokenEnv must be the name of an environment variable/,
    ],
    ['a zero timeout', { timeoutSeconds: 0 }, /timeoutSeconds must be an integer from 1 to 3600/],
  ])('rejects %s at synth', (_, props, message) => {
    expect(() => stackWith({}, props)).toThrow(message);
  });

  test('pins, CA file and timeout reach the target; insecure only when asked', () => {
    const pin = 'AB:'.repeat(31) + 'AB';
    const synth = stackWith(
      {},
      { fingerprints: { 'https://n1:8006': pin }, caFile: '/etc/ca.pem', timeoutSeconds: 10 },
    );
    expect(JSON.parse(synth.resource.terraform_data.pve_apply.input.target)).toEqual({
      endpoints: ['https://n1:8006'],
      tokenEnv: 'PROXMOX_VE_API_TOKEN',
      caFile: '/etc/ca.pem',
      fingerprints: { 'https://n1:8006': pin },
      timeoutSeconds: 10,
    });
  });
});
