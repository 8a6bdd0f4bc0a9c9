/**
 * Every prop of ProxmoxMetricServer judged as a plain-JavaScript app passes it: a wrong type, a
 * missing required prop and a misspelling each get one message naming the construct, the prop and
 * the rule (never a TypeError), every broken rule is reported at once, and the handler boundary
 * refuses what synth refuses when the value was only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { parseAs } from '../../../../src/core/parse';
import { metricServerSpec } from '../../../../src/pve/metric-server';

const VALID = { id: 'influx', type: 'influxdb', server: '10.0.0.5', port: 8089 };

/** The synth error of a server with `props` over the valid ones (undefined values removed). */
const synthError = (props: Record<string, unknown>, withCluster = true): string => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  const given = Object.fromEntries(Object.entries({ ...VALID, ...props }).filter(([, v]) => v !== undefined));
  try {
    new ProxmoxMetricServer(stack, 'm', { ...(withCluster ? { cluster } : {}), ...given } as never);
    Testing.synth(stack);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('synth passed');
};

describe('ProxmoxMetricServer props from plain JavaScript', () => {
  test.each([
    ['id', 42, 'id must be a pve-configid (a letter, then letters, digits, - or _; at least 2 characters), got 42'],
    ['type', 'statsd', 'type must be one of graphite, influxdb, opentelemetry, got "statsd"'],
    ['server', 7, 'server must be an IP address or DNS name, got 7'],
    ['port', '8089', 'port must be an integer from 1 to 65536, got "8089"'],
    ['mtu', 'x', 'mtu must be an integer from 512 to 65536, got "x"'],
    ['disable', 'yes', 'disable must be a boolean, got "yes"'],
    ['influxdbproto', 'ftp', 'influxdbproto must be one of udp, http, https, got "ftp"'],
    ['bucket', 3, 'bucket must be a non-empty single-line string without leading or trailing whitespace, got 3'],
    // An empty option means nothing to PVE, which drops it: the read found it unset and drifted on every plan.
    [
      'organization',
      '',
      'organization must be a non-empty single-line string without leading or trailing whitespace, got ""',
    ],
    ['bucket', '', 'bucket must be a non-empty single-line string without leading or trailing whitespace, got ""'],
    [
      'apiPathPrefix',
      '',
      'apiPathPrefix must be a non-empty single-line string without leading or trailing whitespace, got ""',
    ],
    ['verifyCertificate', 1, 'verifyCertificate must be a boolean, got 1'],
    ['tokenVersion', -1, 'tokenVersion must be an integer of at least 0, got -1'],
    ['retired', 'no', 'retired must be a boolean, got "no"'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says) => {
    expect(synthError({ [prop]: value, ...(prop === 'tokenVersion' ? { tokenEnv: 'T' } : {}) })).toBe(
      `test/m: ${says}`,
    );
  });

  // status.cfg keeps a value without its outer whitespace (SectionConfig.pm parse_config, pve-common f665029
  // line 1485): " lab" read back as "lab", so the plan drifted forever and each apply failed its read-back.
  test.each([
    ['bucket', ' lab', undefined],
    ['organization', 'lab ', undefined],
    ['apiPathPrefix', ' ', undefined],
    ['otelPath', '/v1/metrics ', 'opentelemetry'],
  ])('%s: a value with outer whitespace is refused at synth', (prop, value, type) => {
    const rule = 'a non-empty single-line string without leading or trailing whitespace';
    expect(synthError({ [prop]: value, ...(type === undefined ? {} : { type }) })).toBe(
      `test/m: ${prop} must be ${rule}, got ${JSON.stringify(value)}`,
    );
  });

  // PVE's `address` format is an IP or a DNS name ([PC] f665029 src/PVE/JSONSchema.pm:675-685, 757-765): synth
  // passed these and the apply got PVE's 400.
  test.each(['influx_db.lab', 'http://influx', 'influx:8086', '[fd00::5]', 'fe80::1%eth0', '-influx'])(
    'server: %s, which PVE refuses as an address, is refused at synth',
    (server) => {
      expect(synthError({ server })).toBe(`test/m: server must be an IP address or DNS name, got "${server}"`);
    },
  );

  test.each(['10.0.0.5', 'fd00::5', 'influx', 'influx-1.lab.example'])('server: %s passes synth', (server) => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    new ProxmoxMetricServer(stack, 'm', { cluster, ...VALID, type: 'influxdb', server });
    expect(() => Testing.synth(stack)).not.toThrow();
  });

  // PVE keeps otel-resource-attributes as base64 JSON of at most 1024 characters (OpenTelemetry.pm maxLength,
  // [PM] 14a22df PVE/Status/OpenTelemetry.pm:61-66): synth passed a larger object and PVE answered 400 at apply.
  test('otelResourceAttributes: an object whose base64 JSON is over 1024 characters is refused at synth', () => {
    const big = { pad: 'x'.repeat(760) };
    expect(synthError({ type: 'opentelemetry', otelResourceAttributes: big })).toMatch(
      /^test\/m: otelResourceAttributes must be an object of string values whose base64 JSON is at most 1024 /,
    );
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const fits = { pad: 'x'.repeat(750) };
    new ProxmoxMetricServer(stack, 'm', { cluster, ...VALID, type: 'opentelemetry', otelResourceAttributes: fits });
    expect(() => Testing.synth(stack)).not.toThrow();
  });

  test('otelPath: an empty path is refused at synth, where it drifted on every plan', () => {
    expect(synthError({ type: 'opentelemetry', otelPath: '' })).toBe(
      'test/m: otelPath must be a non-empty single-line string without leading or trailing whitespace, got ""',
    );
  });

  test.each([
    ['id', 'id is required: a pve-configid (a letter, then letters, digits, - or _; at least 2 characters)'],
    ['type', 'type is required: one of graphite, influxdb, opentelemetry'],
    ['server', 'server is required: an IP address or DNS name'],
    ['port', 'port is required: an integer from 1 to 65536'],
  ])('%s: a missing required prop is refused at synth, not at plan', (prop, says) => {
    expect(synthError({ [prop]: undefined })).toBe(`test/m: ${says}`);
  });

  test('a missing cluster is refused naming it, not a TypeError', () => {
    expect(synthError({}, false)).toBe('test/m: cluster is required: a ProxmoxCluster');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(synthError({ bukcet: 'b' })).toBe(
      'test/m: bukcet is not a prop of ProxmoxMetricServer; did you mean bucket?',
    );
    expect(synthError({ colour: 'red' })).toBe('test/m: colour is not a prop of ProxmoxMetricServer');
  });

  test('every broken rule is reported at once', () => {
    expect(synthError({ port: undefined, mtu: 1, path: 'x' })).toBe(
      '3 problems in 1 construct:\ntest/m: port is required: an integer from 1 to 65536\n' +
        'test/m: mtu must be an integer from 512 to 65536, got 1\n' +
        'test/m: path must be left unset for a influxdb server (only graphite servers have it), got "x"',
    );
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const mtu = new TerraformVariable(stack, 'mtu', { type: 'number' });
    new ProxmoxMetricServer(stack, 'm', { cluster, ...VALID, type: 'influxdb', mtu: mtu.numberValue });
    expect(() => Testing.synth(stack)).not.toThrow();
    const spec = { ...VALID, options: { mtu: 100 } };
    expect(() => parseAs(metricServerSpec, spec, 'spec')).toThrow(
      'Bad input: spec.options.mtu: must be an integer from 512 to 65536, got 100',
    );
    expect(() => parseAs(metricServerSpec, { ...spec, options: { mtu: 'x' } }, 'spec')).toThrow(
      'Bad input: spec.options.mtu: must be an integer from 512 to 65536, got "x"',
    );
  });

  test('the handler refuses every broken rule of a hand-written spec at once', () => {
    const spec = { ...VALID, id: '1x', port: 0, options: { path: 'a' } };
    const id = 'a pve-configid (a letter, then letters, digits, - or _; at least 2 characters)';
    expect(() => parseAs(metricServerSpec, spec, 'spec')).toThrow(
      `Bad input: spec.id: must be ${id}, got "1x"; spec.port: must be an integer from 1 to 65536, got 0; ` +
        'spec.options.path: must be left unset for a influxdb server (only graphite servers have it), got "a"',
    );
  });
});
