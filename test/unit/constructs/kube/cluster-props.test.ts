/**
 * Every prop of KubeCluster judged as a plain-JavaScript app passes it: a wrong type and a misspelling each get one
 * message naming the construct, the prop and the rule, every broken rule is reported at once, and the handler
 * boundary refuses what synth refuses when the value was only known at apply, then applies the one default.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { parseAs } from '../../../../src/core/parse';
import { kubeTargetSchema } from '../../../../src/kube/target';
import { synthError } from '../synth-error';

/** The synth error of a cluster with `props`. */
const clusterError = (props: unknown): string => synthError((stack) => new KubeCluster(stack, 'home', props as never));

const IN_CLUSTER = 'left unset when inCluster is true (the pod has no kubeconfig)';

describe('KubeCluster props from plain JavaScript', () => {
  test.each([
    ['kubeconfig', 42, 'kubeconfig must be a path, got 42'],
    ['kubeconfig', '', 'kubeconfig must be a path, got ""'],
    ['context', ['home'], 'context must be a context name, got ["home"]'],
    ['inCluster', 'yes', 'inCluster must be a boolean, got "yes"'],
    ['timeoutSeconds', '30', 'timeoutSeconds must be an integer from 1 to 3600, got "30"'],
  ])('%s: a wrong value (%p) names the prop and the rule', (prop, value, says) => {
    expect(clusterError({ [prop]: value })).toBe(`test/home: ${says}`);
  });

  test('props that are not an object are refused naming them', () => {
    expect(clusterError(null)).toBe("test/home: props must be an object of KubeCluster's props, got null");
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(clusterError({ kubeConfig: '~/.kube/config' })).toBe(
      'test/home: kubeConfig is not a prop of KubeCluster; did you mean kubeconfig?',
    );
  });

  // An audit (2026-12-05): an id the cluster-name rule refuses threw a bare ZodError that hid every other problem.
  test('an id that is no cluster name is a problem among the others, naming the rule', () => {
    const long = 'k'.repeat(254);
    const error = synthError((stack) => {
      new KubeCluster(stack, long, {});
      new KubeCluster(stack, 'home', { inCluster: 'yes' } as never);
    });
    expect(error).toBe(
      `2 problems in 2 constructs:\ntest/${long}: id must be a cluster name, got "${long}"\n` +
        'test/home: inCluster must be a boolean, got "yes"',
    );
  });

  test('every broken rule is reported at once', () => {
    expect(clusterError({ inCluster: true, kubeconfig: '~/k', context: 'home', timeoutSeconds: 0 })).toBe(
      '3 problems in 1 construct:\ntest/home: timeoutSeconds must be an integer from 1 to 3600, got 0\n' +
        `test/home: kubeconfig must be ${IN_CLUSTER}, got "~/k"\ntest/home: context must be ${IN_CLUSTER}, got "home"`,
    );
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const timeoutSeconds = new TerraformVariable(stack, 'timeout', { type: 'number' }).numberValue;
    new KubeCluster(stack, 'home', { timeoutSeconds });
    expect(() => Testing.synth(stack)).not.toThrow();
    expect(() => parseAs(kubeTargetSchema, { name: 'home', timeoutSeconds: 0 }, 'target')).toThrow(
      'Bad input: target.timeoutSeconds: must be an integer from 1 to 3600, got 0',
    );
  });

  test('the handler refuses a hand-written target by the rule across props', () => {
    expect(() => parseAs(kubeTargetSchema, { name: 'home', inCluster: true, context: 'c' }, 'target')).toThrow(
      `Bad input: target.context: must be ${IN_CLUSTER}, got "c"`,
    );
  });

  test('the handler applies the default timeout, which the stack leaves out', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const { target } = new KubeCluster(stack, 'home', { context: 'home' });
    expect(target).toEqual({ name: 'home', context: 'home' });
    expect(parseAs(kubeTargetSchema, target, 'target')).toEqual({ name: 'home', context: 'home', timeoutSeconds: 30 });
  });
});
