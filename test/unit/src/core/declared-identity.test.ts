// A destroy hook whose configuration declares its object (HOMELAB_DECLARED): a Repo still declared with another
// deleteOnDestroy or version is left as it is, where the hook of its replaced lifecycle deleted it (an audit,
// 2026-12-05); an object no longer declared (its name changed) is destroyed as the configuration says destroy acts.
import { destroyInput } from '../../../../src/core/lifecycle-input';

const TARGET = { kubeconfig: '~/.kube/config' };
const STORED = { namespace: 'jr2', key: 'site', version: 'v1alpha1', deleteOnDestroy: true };

/** The hook of a lifecycle that stored `STORED`, its configuration declaring `names` and `settings`. */
const hook = (names: object, settings: object) => ({
  HOMELAB_LIFECYCLE: JSON.stringify(JSON.stringify({ identity: STORED, target: 'home' })),
  HOMELAB_TARGET: JSON.stringify(TARGET),
  HOMELAB_TARGET_LABEL: 'home',
  HOMELAB_DECLARED: JSON.stringify({ names, settings }),
});
const NAMES = { namespace: 'jr2', key: 'site' };

test('a hook whose configuration declares the object as stored destroys it as stored', () => {
  expect(destroyInput(hook(NAMES, { version: 'v1alpha1', deleteOnDestroy: true }))).toEqual({
    target: TARGET,
    identity: STORED,
  });
});

test.each([
  ['deleteOnDestroy turned off', { version: 'v1alpha1', deleteOnDestroy: false }, 'deleteOnDestroy true, now false'],
  ['another version', { version: 'v1beta1', deleteOnDestroy: true }, 'version "v1alpha1", now "v1beta1"'],
])('a hook whose configuration still declares the object with %s leaves it as it is', (_, settings, change) => {
  const read = destroyInput(hook(NAMES, settings));
  expect(read).toEqual({ target: undefined, identity: undefined, kept: expect.stringContaining(change) });
  expect(read.kept).toMatch(/^namespace "jr2", key "site": still declared by this stack, .*: left as it is/);
});

test('an object the configuration no longer declares is destroyed with the settings it declares now', () => {
  expect(destroyInput(hook({ namespace: 'jr2', key: 'docs' }, { version: 'v1beta1', deleteOnDestroy: false }))).toEqual(
    { target: TARGET, identity: { namespace: 'jr2', key: 'site', version: 'v1beta1', deleteOnDestroy: false } },
  );
});

test('a declaration that is not one is refused naming the variable', () => {
  expect(() => destroyInput({ ...hook(NAMES, {}), HOMELAB_DECLARED: '{"names":1}' })).toThrow(
    /^Bad input: HOMELAB_DECLARED/,
  );
});
