/**
 * The record is anyone's to edit in a pull request (issue 27). Probes from the security review: a
 * tombstone's kind edited into shell text ran as the user; its target's settings edited to another
 * endpoint sent the PVE token there. Now a hook's command is fixed text for every kind, a tombstone's
 * target and handler come from the code, and an entry the code cannot stand behind fails the synth,
 * naming it, with the record left as it was.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
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
import { recordProject } from './record-project';

const project = recordProject('homelab-hostile-');
const dir = project.dir;
const recordFile = project.recordFile;

/** Stack `lab` with one object of every kind when `all`, else only its three targets. */
const synth = (all: boolean) => {
  const stack = new TerraformStack(Testing.app({ outdir: join(dir(), 'cdktf.out') }), 'lab');
  const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });
  const kube = new KubeCluster(stack, 'home', { kubeconfig: '/k/config', context: 'home' });
  if (all) {
    new ProxmoxMetricServer(stack, 'm', { cluster: pve, id: 'mm', type: 'graphite', server: '10.0.0.5', port: 2003 });
    new ProxmoxMetricServer(stack, 'influx', {
      cluster: pve,
      id: 'influx',
      type: 'influxdb',
      server: '10.0.0.5',
      port: 8086,
      influxdbproto: 'http',
      tokenEnv: 'INFLUX_TOKEN',
      tokenVersion: 1,
    } as never);
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, node: 'n1', iface: 'vmbr5', type: 'bridge' });
    new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n1'] });
    const probe = new SystemdUnit(stack, 'probe', {
      host,
      name: 'probe@.service',
      content: '[Service]\nExecStart=/bin/true\n',
    });
    probe.instance('a');
    new SystemdUnit(stack, 'web', { host, name: 'web.service', content: '[Service]\nExecStart=/bin/true\n' });
    new SystemdDropIn(stack, 'limits', { host, unit: 'web.service', name: '10-limits', content: '[Service]\nX=1\n' });
    new KubeRepo(stack, 'site', {
      cluster: kube,
      namespace: 'jr2',
      key: 'site',
      url: 'git@g:me/s.git',
      identity: 'g/me/s',
    });
    new KubeRepoFetch(stack, 'warm', { cluster: kube, namespace: 'jr2', sandbox: 'a', key: 'site', trigger: 'v1' });
  }
  return JSON.parse(Testing.synth(stack));
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every local-exec of the synthesized stack: its resources' and its removed blocks'. */
const localExecs = (json: Json): Json[] =>
  [
    ...Object.values((json.resource?.terraform_data ?? {}) as Record<string, Json>),
    ...((json.removed ?? []) as Json[]),
  ].flatMap((block) => ((block.provisioner ?? []) as Json[]).map((p) => p['local-exec'] as Json));

// The only commands a stack may run: a bundle of the stack's assets, then fixed words.
const BUNDLE = String.raw`node "assets/homelab-handler-(pve|linux|kube)/[0-9A-F]+/(pve|linux|kube)\.js"`;
const FIXED = new RegExp(String.raw`^${BUNDLE} ("\$HOMELAB_KIND" apply|batch apply)$`);
// A destroy hook, its interpreter and command as one argv: the shipped sh hook, a bundle, its domain's name
// (handlers/destroy-hook.sh), then `destroy`, or `teardown` for a target's teardown.
const SH_HOOK = new RegExp(
  String.raw`^sh assets/homelab-destroy-hook/[0-9A-F]+/destroy-hook\.sh ` +
    String.raw`assets/homelab-handler-(pve|linux|kube)/[0-9A-F]+/(pve|linux|kube)\.js ` +
    String.raw`(pve|linux|kube) (destroy|teardown)$`,
);
/** A hook's program and arguments as one line: `command` alone, as `/bin/sh -c` runs it, or after its interpreter. */
const argvOf = (hook: Json): string =>
  hook.interpreter === undefined ? hook.command : [...hook.interpreter, hook.command].join(' ');

const edit = (change: (record: Json) => void): void => {
  const record = JSON.parse(readFileSync(recordFile(), 'utf8'));
  change(record);
  writeFileSync(recordFile(), JSON.stringify(record));
};

describe('every local-exec command', () => {
  test('is fixed text for every kind, declared and removed: values travel in the environment', () => {
    const declared = localExecs(synth(true));
    const removed = localExecs(synth(false));
    expect(declared.length).toBeGreaterThanOrEqual(12);
    expect(removed.length).toBeGreaterThanOrEqual(8);
    for (const hook of [...declared, ...removed]) {
      expect(argvOf(hook)).toMatch(hook.interpreter === undefined ? FIXED : SH_HOOK);
    }
    const kinds = new Set([...declared, ...removed].map((hook) => hook.environment.HOMELAB_KIND));
    // The batch applies (no kind), and every kind with a destroy hook (a fetch ask has nothing to destroy).
    expect([...kinds].sort()).toEqual([
      'kube-repo',
      'metric-server',
      'network-apply',
      'network-interface',
      'systemd-drop-in',
      'systemd-instance',
      'systemd-unit',
      undefined,
    ]);
  });
});

describe('a record edited by hand', () => {
  test('a kind edited into shell text fails the synth naming the entry, and the record stays as it was', () => {
    synth(true);
    edit((record) => (record.stacks.lab.objects.m.kind = 'metric-server destroy; id > marker; true'));
    const before = readFileSync(recordFile(), 'utf8');
    expect(() => synth(false)).toThrow(
      'stacks.lab.objects.m.kind must be a kind name (a-z, then a-z, 0-9 and -), ' +
        'got "metric-server destroy; id > marker; true"',
    );
    expect(readFileSync(recordFile(), 'utf8')).toBe(before);
  });

  test("a kind of another domain on a target is refused: the handler would be the target's", () => {
    synth(true);
    edit((record) => (record.stacks.lab.objects.m.kind = 'systemd-unit'));
    expect(() => synth(false)).toThrow(
      'stacks.lab.objects.m.kind must be a kind of target "pve" ' +
        '(metric-server, network-interface, network-apply), got "systemd-unit"',
    );
  });

  test("a target's settings edited to another endpoint never reach a hook: the code's settings do", () => {
    synth(true);
    edit((record) => {
      record.stacks.lab.targets = { pve: { domain: 'pve', settings: { endpoints: ['https://attacker:8006'] } } };
    });
    const hooks = localExecs(synth(false));
    const texts = JSON.stringify(hooks);
    expect(texts).not.toContain('attacker');
    const metric = hooks.find((hook) => hook.environment.HOMELAB_KIND === 'metric-server');
    expect(JSON.parse(metric?.environment.HOMELAB_TARGET)).toMatchObject({ endpoints: ['https://n1:8006'] });
    expect(JSON.parse(readFileSync(recordFile(), 'utf8')).stacks.lab).not.toHaveProperty('targets');
  });

  test('an entry on a target the code no longer declares is refused, naming it and what to do', () => {
    synth(true);
    edit((record) => (record.stacks.lab.objects.m.target = 'elsewhere'));
    expect(() => synth(false)).toThrow(
      /stacks\.lab\.objects\.m names target "elsewhere", which no construct of stack lab declares now: .* keep/,
    );
  });

  test('a bundle path, a command or an unknown field in an entry fails the synth, all problems at once', () => {
    synth(true);
    edit((record) => {
      record.stacks.lab.objects.m.bundle = '/tmp/evil.js';
      record.stacks.lab.objects['x; rm -rf /'] = { kind: 'metric-server', target: 'pve', state: 'removed' };
      record.stacks.lab.objects.br.target = 'pve$(id)';
    });
    const message = (() => {
      try {
        synth(false);
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    })();
    expect(message).toContain('3 problems: ');
    expect(message).toContain('stacks.lab.objects.m holds unknown fields "bundle"');
    expect(message).toContain('stacks.lab.objects key "x; rm -rf /" must be an object name (a Terraform identifier)');
    expect(message).toContain(
      'stacks.lab.objects.br.target must be a target label (a Terraform identifier), got "pve$(id)"',
    );
  });
});

describe('a record committed as something other than a file', () => {
  /** The synth's error message, or 'no error'. */
  const failure = () => {
    try {
      synth(false);
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  };

  // A link can be committed: one to a token file of whoever runs CI printed its first characters in the synth's error.
  test('a link is refused unread, naming the file, whatever it points at', () => {
    writeFileSync(join(dir(), 'vault-token'), 'hvs.CAESIJsecret-token');
    symlinkSync(join(dir(), 'vault-token'), recordFile());
    const message = failure();
    expect(message).toMatch(/cdktf-homelab\.record\.json is not a regular file \(a link\?\): restore it/);
    expect(message).not.toMatch(/CAESI|hvs/);
    expect(readFileSync(join(dir(), 'vault-token'), 'utf8')).toBe('hvs.CAESIJsecret-token');
  });

  test('a link to /dev/zero is refused at once, not read to the end of memory', () => {
    symlinkSync('/dev/zero', recordFile());
    expect(failure()).toMatch(/is not a regular file/);
  });

  test('a file that is not JSON is named with where it breaks, never with its text', () => {
    writeFileSync(recordFile(), 'hvs.CAESIJsecret-token');
    const message = failure();
    expect(message).toMatch(/cdktf-homelab\.record\.json is not JSON.*: restore it from version control/);
    expect(message).not.toMatch(/CAESI|hvs/);
  });
});
