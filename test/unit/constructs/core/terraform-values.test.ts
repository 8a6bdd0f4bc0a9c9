/**
 * A boolean, a list or a map given whole as a Terraform value (a variable's `booleanValue`, `listValue`,
 * `Token.asAny(...)`): synth encodes it with Terraform's jsonencode and leaves its rules to the handler, as it
 * does a string or a number, and refuses it, naming the construct, the prop and what synth decides from it,
 * where synth branches on its value. Synth judged such a value by the prop's rule as if it were known, so every
 * one of them was refused with "got <unresolved-token>" (or a list's placeholder), and an IResolvable, which is
 * truthy, would have been taken for `true` where synth branches on it. A spec form synth made of a value (a
 * digest, a base64) is Terraform's where the value holds one: synth's was taken over cdktf's placeholder.
 */
import { Testing, TerraformStack, TerraformVariable, Token } from 'cdktf';
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
import { synthError } from '../synth-error';

/** The variables a row may pass: a bool, a list of strings, a map of strings, a string and a number. */
const variablesOf = (stack: TerraformStack) => {
  const list = new TerraformVariable(stack, 'names', { type: 'list(string)' });
  const map = new TerraformVariable(stack, 'labels', { type: 'map(string)' });
  return {
    flag: new TerraformVariable(stack, 'flag', { type: 'bool' }).booleanValue,
    list: list.listValue,
    anyList: Token.asAny(list.value),
    map: Token.asStringMap(map.value),
    anyMap: Token.asAny(map.value),
    text: new TerraformVariable(stack, 'site', { type: 'string' }).stringValue,
    number: new TerraformVariable(stack, 'vid', { type: 'number' }).numberValue,
  };
};
type Values = ReturnType<typeof variablesOf>;

const CONTENT = '[Service]\nExecStart=/bin/true\n';
const host = (stack: TerraformStack, props: object = {}) =>
  new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true, ...props });
const pve = (stack: TerraformStack, props: object = {}) =>
  new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'], ...props });
const kube = (stack: TerraformStack, props: object = {}) => new KubeCluster(stack, 'home', props);

/** Props a construct takes beside the one a row sets, typed loosely: a row passes a Terraform value anywhere. */
type Loose = Record<string, unknown>;
const unit = (stack: TerraformStack, props: Loose, on = host(stack)) =>
  new SystemdUnit(stack, 'u', { host: on, name: 'a.service', content: CONTENT, ...props } as never);
const instance = (stack: TerraformStack, props: Loose) =>
  new SystemdUnit(stack, 'p', { host: host(stack), name: 'p@.service', content: CONTENT }).instance('x', props);
const dropIn = (stack: TerraformStack, props: Loose) =>
  new SystemdDropIn(stack, 'd', { host: host(stack), unit: 'ssh.service', name: '10-x', content: CONTENT, ...props });
const metric = (stack: TerraformStack, props: Loose, type = 'graphite') =>
  new ProxmoxMetricServer(stack, 'm', {
    cluster: pve(stack),
    id: 'm1',
    type,
    server: 'x',
    port: 2003,
    ...props,
  } as never);
const bridge = (stack: TerraformStack, props: Loose, on = pve(stack)) =>
  new ProxmoxNetworkInterface(stack, 'i', { cluster: on, node: 'n1', iface: 'vmbr1', type: 'bridge', ...props });
const bond = (stack: TerraformStack, props: Loose) =>
  new ProxmoxNetworkInterface(stack, 'i', { cluster: pve(stack), node: 'n1', iface: 'bond0', type: 'bond', ...props });
const apply = (stack: TerraformStack, props: Loose) =>
  new ProxmoxNetworkApply(stack, 'a', { cluster: pve(stack), nodes: ['n1'], ...props });
const REPO = { namespace: 'jr2', key: 'site', url: 'https://git.example/me/site', identity: 'git.example/me/site' };
const repo = (stack: TerraformStack, props: Loose, on = kube(stack)) =>
  new KubeRepo(stack, 'r', { cluster: on, ...REPO, ...props });
const ASK = { namespace: 'jr2', sandbox: 's', key: 'site', trigger: 'v1' };
const fetchAsk = (stack: TerraformStack, props: Loose) =>
  new KubeRepoFetch(stack, 'f', { cluster: kube(stack), ...ASK, ...props });

type Build = (stack: TerraformStack, values: Values) => void;

describe('a boolean, list or map given whole as a Terraform value', () => {
  test.each<[string, Build, string]>([
    ['SystemdUnit enabled', (s, v) => unit(s, { enabled: v.flag }), '"enabled" = var.flag'],
    ['SystemdUnit started', (s, v) => unit(s, { started: v.flag }), '"started" = var.flag'],
    ['SystemdUnit unmask', (s, v) => unit(s, { unmask: v.flag }), '"unmask" = var.flag'],
    [
      'SystemdUnit restartOn (Token.asAny)',
      (s, v) => unit(s, { restartOn: v.anyList }),
      'sha256(jsonencode(var.names))',
    ],
    ['SystemdUnitInstance enabled', (s, v) => instance(s, { enabled: v.flag }), '"enabled" = var.flag'],
    [
      'SystemdUnitInstance restartOn',
      (s, v) => instance(s, { restartOn: v.list }),
      'sha256(jsonencode(concat(var.names',
    ],
    ['ProxmoxMetricServer disable', (s, v) => metric(s, { disable: v.flag }), '"disable" = var.flag'],
    [
      'ProxmoxMetricServer otelResourceAttributes',
      (s, v) => metric(s, { otelResourceAttributes: v.map }, 'opentelemetry'),
      '"otel-resource-attributes" = base64encode(jsonencode(var.labels))',
    ],
    // The JSON of a map holding a value was taken at synth, over cdktf's placeholder: PVE got the placeholder.
    [
      'ProxmoxMetricServer otelResourceAttributes holding a value',
      (s, v) => metric(s, { otelResourceAttributes: { site: v.text } }, 'opentelemetry'),
      '"otel-resource-attributes" = base64encode(jsonencode({"site" = var.site}))',
    ],
    ['ProxmoxNetworkInterface autostart', (s, v) => bridge(s, { autostart: v.flag }), '"autostart" = var.flag'],
    [
      'ProxmoxNetworkInterface bridgeVlanAware, bridgeVids beside it',
      (s, v) => bridge(s, { bridgeVlanAware: v.flag, bridgeVids: [10] }),
      '"bridge_vlan_aware" = var.flag',
    ],
    [
      'ProxmoxNetworkInterface bridgeVids',
      (s, v) => bridge(s, { bridgeVlanAware: true, bridgeVids: v.list }),
      '"bridge_vids" = formatlist("%s", var.names)',
    ],
    [
      'ProxmoxNetworkInterface bridgeVids holding a number',
      (s, v) => bridge(s, { bridgeVlanAware: true, bridgeVids: [v.number, 10] }),
      '"bridge_vids" = formatlist("%s", [var.vid, 10])',
    ],
    [
      'ProxmoxNetworkApply reloadForeignChanges',
      (s, v) => apply(s, { reloadForeignChanges: v.flag }),
      '"reloadForeignChanges" = var.flag',
    ],
    ['ProxmoxCluster endpoints', (s, v) => bridge(s, {}, pve(s, { endpoints: v.list })), '"endpoints" = var.names'],
    [
      'ProxmoxCluster insecure, with an http endpoint',
      (s, v) => bridge(s, {}, pve(s, { endpoints: ['http://n1:8006'], insecure: v.flag })),
      '"insecure" = var.flag',
    ],
    [
      'ProxmoxCluster fingerprints',
      (s, v) => bridge(s, {}, pve(s, { fingerprints: v.map })),
      '"fingerprints" = var.labels',
    ],
    [
      'SshHost insecureAcceptAnyHostKey',
      (s, v) => unit(s, {}, host(s, { insecureAcceptAnyHostKey: v.flag })),
      '"insecureAcceptAnyHostKey" = var.flag',
    ],
    ['KubeCluster inCluster', (s, v) => repo(s, {}, kube(s, { inCluster: v.flag })), '"inCluster" = var.flag'],
    ['KubeRepo credentials', (s, v) => repo(s, { credentials: v.anyList }), '"credentials" = var.names'],
  ])('%s is encoded by jsonencode for the handler to judge', (_, build, encoded) => {
    const stack = new TerraformStack(Testing.app(), 'test');
    build(stack, variablesOf(stack));
    expect(Testing.synth(stack)).toContain(JSON.stringify(encoded).slice(1, -1));
  });

  const PLAIN = 'must be a plain value known at synth, got a Terraform reference';
  const REMOVAL = 'synth declares its removal instead of the object';
  const FORGET = 'synth drops the object from the state instead of declaring it';
  const ADOPT = 'synth decides from it what the apply may take over and what destroy may remove';
  const TAKE_OVER = 'synth decides from it whether the apply may take the object from another stack';
  const ORDER = 'synth stages this interface after the interfaces it names; one item may be a Terraform value';
  test.each<[string, Build, string]>([
    ['SystemdUnit retired', (s, v) => unit(s, { retired: v.flag }), `test/u: retired ${PLAIN} (${REMOVAL})`],
    ['SystemdUnit forget', (s, v) => unit(s, { forget: v.flag }), `test/u: forget ${PLAIN} (${FORGET})`],
    ['SystemdUnit adopt', (s, v) => unit(s, { adopt: v.flag }), `test/u: adopt ${PLAIN} (${ADOPT})`],
    ['SystemdUnit takeOver', (s, v) => unit(s, { takeOver: v.flag }), `test/u: takeOver ${PLAIN} (${TAKE_OVER})`],
    [
      'SystemdUnitInstance retired',
      (s, v) => instance(s, { retired: v.flag }),
      `test/p-x: retired ${PLAIN} (${REMOVAL})`,
    ],
    ['SystemdDropIn forget', (s, v) => dropIn(s, { forget: v.flag }), `test/d: forget ${PLAIN} (${FORGET})`],
    ['ProxmoxMetricServer retired', (s, v) => metric(s, { retired: v.flag }), `test/m: retired ${PLAIN} (${REMOVAL})`],
    ['ProxmoxMetricServer adopt', (s, v) => metric(s, { adopt: v.flag }), `test/m: adopt ${PLAIN} (${ADOPT})`],
    ['ProxmoxNetworkInterface forget', (s, v) => bridge(s, { forget: v.flag }), `test/i: forget ${PLAIN} (${FORGET})`],
    [
      'ProxmoxNetworkInterface bridgePorts',
      (s, v) => bridge(s, { bridgePorts: v.list }),
      `test/i: bridgePorts ${PLAIN} (${ORDER})`,
    ],
    ['ProxmoxNetworkInterface slaves', (s, v) => bond(s, { slaves: v.anyList }), `test/i: slaves ${PLAIN} (${ORDER})`],
    [
      'ProxmoxNetworkApply nodes',
      (s, v) => apply(s, { nodes: v.list }),
      `test/a: nodes ${PLAIN} (synth stages every interface of the stack on these nodes before their reload)`,
    ],
    [
      'KubeRepo deleteOnDestroy',
      (s, v) => repo(s, { deleteOnDestroy: v.flag }),
      `test/r: deleteOnDestroy ${PLAIN} (the stack's record and the destroy hook keep it, both written at synth)`,
    ],
    ['KubeRepo takeOver', (s, v) => repo(s, { takeOver: v.flag }), `test/r: takeOver ${PLAIN} (${TAKE_OVER})`],
    ['KubeRepoFetch takeOver', (s, v) => fetchAsk(s, { takeOver: v.flag }), `test/f: takeOver ${PLAIN} (${TAKE_OVER})`],
    // Taken as known, these were read as a construct or a name at synth: a TypeError, not a problem of the app.
    [
      'SystemdUnit host',
      (s, v) => unit(s, { host: v.anyMap }),
      `test/u: host ${PLAIN} (synth declares the object on an SshHost)`,
    ],
    [
      'SystemdDropIn unit',
      (s, v) => new SystemdDropIn(s, 'd', { host: host(s), unit: v.anyMap as never, name: '10-x', content: CONTENT }),
      `test/d: unit ${PLAIN} (it names the object, so its rules are checked at synth)`,
    ],
    [
      'SystemdUnit content',
      (s, v) => unit(s, { content: v.anyList }),
      `test/u: content ${PLAIN} ` +
        "(synth holds each Terraform value in text or sections to a directive's value; they may hold values)",
    ],
  ])('%s is refused at synth, naming what synth decides from it', (_, build, says) => {
    expect(synthError((stack) => build(stack, variablesOf(stack)))).toBe(says);
  });
});
