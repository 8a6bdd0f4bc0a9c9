/**
 * Every prop of ProxmoxNetworkApply judged as a plain-JavaScript app passes it: a wrong type, a
 * missing required prop and a misspelling each get one message naming the construct, the prop and
 * the rule (never a TypeError), every broken rule is reported at once, the defaults reach the spec,
 * and the handler boundary refuses what synth refuses when the value was only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxNetworkApply } from '../../../../constructs/pve/network-apply';
import { parseAs } from '../../../../src/core/parse';
import { networkApplySpec } from '../../../../src/pve/network-apply';
import { parsedEntry } from '../batch-apply';
import { synthError as failure } from '../synth-error';
import { onCluster } from './on-cluster';

const VALID = { nodes: ['n2'] };

/** The synth error of an apply with `props` over the valid ones. */
const synthError = (props: Record<string, unknown>, withCluster = true): string =>
  failure((stack) => new ProxmoxNetworkApply(stack, 'net', onCluster(stack, { ...VALID, ...props }, withCluster)));

describe('ProxmoxNetworkApply props from plain JavaScript', () => {
  test.each([
    ['nodes', 'n2', 'nodes must be a non-empty list of node names, got "n2"'],
    ['timeoutSeconds', '30', 'timeoutSeconds must be an integer from 1 to 3600, got "30"'],
    ['reloadForeignChanges', 'yes', 'reloadForeignChanges must be a boolean, got "yes"'],
    ['cluster', {}, 'cluster must be a ProxmoxCluster, got {}'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says) => {
    expect(synthError({ [prop]: value })).toBe(`test/net: ${says}`);
  });

  test('nodes: a missing required prop is refused at synth, not at plan', () => {
    expect(synthError({ nodes: undefined })).toBe('test/net: nodes is required: a non-empty list of node names');
  });

  test('a missing cluster is refused naming it, not a TypeError', () => {
    expect(synthError({}, false)).toBe('test/net: cluster is required: a ProxmoxCluster');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(synthError({ reloadForeignChange: true })).toBe(
      'test/net: reloadForeignChange is not a prop of ProxmoxNetworkApply; did you mean reloadForeignChanges?',
    );
  });

  test('every broken rule is reported at once', () => {
    expect(synthError({ nodes: ['n2', 'n2'], timeoutSeconds: 0 })).toBe(
      '2 problems in 1 construct:\ntest/net: nodes must be free of duplicates, got ["n2","n2"]\n' +
        'test/net: timeoutSeconds must be an integer from 1 to 3600, got 0',
    );
  });

  test('all defaults: the definition fills a 30 s wait and reloadForeignChanges false into the spec', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    new ProxmoxNetworkApply(stack, 'net', { cluster, nodes: ['n2'] });
    expect(parsedEntry(JSON.parse(Testing.synth(stack)), 'pve', 'net').spec).toEqual({
      nodes: ['n2'],
      timeoutSeconds: 30,
      interfaces: { n2: [] },
      reloadForeignChanges: false,
    });
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const wait = new TerraformVariable(stack, 'wait', { type: 'number' });
    new ProxmoxNetworkApply(stack, 'net', { cluster, nodes: ['n2'], timeoutSeconds: wait.numberValue });
    expect(() => Testing.synth(stack)).not.toThrow();
    expect(() => parseAs(networkApplySpec, { nodes: ['n2'], timeoutSeconds: 7200 }, 'spec')).toThrow(
      'Bad input: spec.timeoutSeconds: must be an integer from 1 to 3600, got 7200',
    );
  });
});
