/**
 * Every problem of every construct in one synth (issue 29 item 4): construction threw at the first broken
 * construct, so a user fixed and re-ran once per mistake. Now an app with five mistakes in three constructs
 * gets all five in one ValidationError, one line each naming the construct path, the prop and the rule; a
 * construct built after a refused one and naming it does not crash; an identity clash names both constructs.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Testing, TerraformStack } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { KubeRepoFetch } from '../../../../constructs/kube/kube-repo-fetch';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxMetricServer } from '../../../../constructs/pve/metric-server';
import { ProxmoxNetworkApply } from '../../../../constructs/pve/network-apply';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { ValidationError } from '../../../../src/core/errors';
import { hostIn } from '../linux/on-host';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { fiveMistakesApp } = require('./five-mistakes-app') as {
  fiveMistakesApp: (outdir: string, skip?: boolean) => App;
};

const CONTENT = '[Service]\nExecStart=/bin/true\n';
const URL_RULE = 'must be free of credentials (a clone Secret named in credentials[].https or .ssh carries them)';

/** The five lines of the five mistakes, under the stack `stack`. */
const fiveLines = (stack: string) => [
  `${stack}/metrics: bukcet is not a prop of ProxmoxMetricServer; did you mean bucket?`,
  `${stack}/metrics: port is required: an integer from 1 to 65536`,
  `${stack}/agent: name must be a name ending in a unit type (.service, .socket, .device, .mount, .automount, ` +
    '.swap, .target, .path, .timer, .slice, .scope), got "agent"',
  `${stack}/site: namespace must be a namespace name (a DNS label: a-z, 0-9 and -, at most 63 characters), got "Jr2"`,
  `${stack}/site: url ${URL_RULE}, got "https://***@git.example/me/site.git"`,
];

/** What `run` threw. */
const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
};

describe('every problem of the app in one synth', () => {
  test('five mistakes in three constructs fail one synth with five lines, each naming path, prop and rule', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const metrics = { cluster, id: 'influx', type: 'influxdb', server: 'h', bukcet: 'lab' };
    new ProxmoxMetricServer(stack, 'metrics', metrics as never);
    new SystemdUnit(stack, 'agent', { host: hostIn(stack), name: 'agent', content: CONTENT });
    const kube = new KubeCluster(stack, 'home', {});
    const url = 'https://TOKEN@git.example/me/site.git';
    new KubeRepo(stack, 'site', { cluster: kube, namespace: 'Jr2', key: 'site', url, identity: 'git.example/me/site' });
    const error = thrown(() => Testing.synth(stack));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toHaveProperty('message', ['5 problems in 3 constructs:', ...fiveLines('test')].join('\n'));
  });

  test('a plain-JavaScript app gets all five in one app.synth, skipValidation or not, and no stack is written', () => {
    for (const skipValidation of [false, true]) {
      const outdir = mkdtempSync(join(tmpdir(), 'homelab-problems-'));
      try {
        const app = fiveMistakesApp(outdir, skipValidation);
        expect(() => app.synth()).toThrow(['5 problems in 3 constructs:', ...fiveLines('lab')].join('\n'));
        // The healthy stack is not written either: every stack is prepared before any is written.
        expect(existsSync(join(outdir, 'stacks')) ? readdirSync(join(outdir, 'stacks')) : []).toEqual([]);
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    }
  });

  test('constructs naming a refused construct build nothing and say nothing of it: only its problems fail', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: [] });
    const server = new ProxmoxMetricServer(stack, 'm', { cluster, id: 'gr', type: 'graphite', server: 'h', port: 1 });
    new ProxmoxNetworkInterface(stack, 'br', { cluster, node: 'n2', iface: 'vmbr1', type: 'bridge' });
    new ProxmoxNetworkApply(stack, 'net', { cluster, nodes: ['n2'] });
    const host = new SshHost(stack, 'far', { host: 'a b', insecureAcceptAnyHostKey: true });
    const unit = new SystemdUnit(stack, 'probe', { host, name: 'probe@.service', content: CONTENT });
    unit.instance('tty9');
    new SystemdDropIn(stack, 'limits', { unit, name: '10-limits', content: CONTENT });
    const kube = new KubeCluster(stack, 'home', { timeoutSeconds: 0 });
    new KubeRepo(stack, 'site', { cluster: kube, namespace: 'jr2', key: 'site', url: 'git@g:me/s.git', identity: 'g' });
    new KubeRepoFetch(stack, 'ask', { cluster: kube, namespace: 'jr2', sandbox: 'a', key: 'site', trigger: 'v1' });
    const fine = new SystemdUnit(stack, 'fine', { host: hostIn(stack), name: 'fine.service', content: CONTENT });
    fine.applyAfter(server);
    server.applyAfter(fine);
    expect(() => Testing.synth(stack)).toThrow(
      '3 problems in 3 constructs:\ntest/pve: endpoints must be a non-empty list, got []\n' +
        'test/far: host must be a host name or IP address, got "a b"\n' +
        'test/home: timeoutSeconds must be an integer from 1 to 3600, got 0',
    );
    // Read by the app's own code, what a refused construct did not build names it and the problems.
    expect(() => server.object).toThrow(/^test\/m: built nothing to read, for its props or a construct it names:\n3 /);
    expect(() => cluster.target).toThrow(/^test\/pve: built nothing to read/);
  });

  test('identity clashes are among the problems, each naming both constructs', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    for (const id of ['first', 'second']) {
      new ProxmoxMetricServer(stack, id, { cluster, id: 'graphite1', type: 'graphite', server: 'h', port: 2003 });
    }
    for (const id of ['a', 'b'])
      new ProxmoxNetworkInterface(stack, id, { cluster, node: 'n2', iface: 'vmbr1', type: 'bridge' });
    const host = hostIn(stack);
    for (const id of ['x', 'y']) new SystemdUnit(stack, id, { host, name: 'probe.service', content: CONTENT });
    new SystemdUnit(stack, 'bad', { host, name: 'bad.service', content: CONTENT, startTimeoutSeconds: 0 });
    expect(() => Testing.synth(stack)).toThrow(
      '4 problems in 4 constructs:\n' +
        'test/second: id must be unique among the metric servers of test/pve (test/first declares it too), ' +
        'got "graphite1"\n' +
        'test/b: iface must be declared once per node (test/a declares it on n2 too), got "vmbr1"\n' +
        'test/y: name must be unique among the units of test/n2 (test/x declares it too), got "probe.service"\n' +
        'test/bad: startTimeoutSeconds must be an integer from 1 to 3600, got 0',
    );
  });
});
