// destroyInput: where a destroy hook's target and identity come from, for each form a lifecycle's input
// takes in a state, and the refusal to destroy with the settings of a target the object was not on.
import { destroyInput } from '../../../../src/core/lifecycle-input';
import { foundReading } from '../../../../src/core/ownership';

const TARGET = { endpoints: ['https://n1:8006'] };
/** A hook's environment; `null`: the hook of a target holding Terraform values, which sets no target. */
const hook = (stored: unknown, label: string | null = 'pve') => ({
  HOMELAB_LIFECYCLE: JSON.stringify(stored),
  ...(label === null ? {} : { HOMELAB_TARGET: JSON.stringify(TARGET), HOMELAB_TARGET_LABEL: label }),
});

describe('destroyInput', () => {
  test.each([
    [
      "a lifecycle on the hook's target: the target's settings from the hook",
      hook('{"identity":{"id":"a"},"target":"pve"}'),
      { target: TARGET, identity: { id: 'a' } },
    ],
    [
      'a lifecycle whose target holds Terraform values: the settings it stored',
      hook('{"identity":{"id":"a"},"target":{"endpoints":["https://n9:8006"]}}', null),
      { target: { endpoints: ['https://n9:8006'] }, identity: { id: 'a' } },
    ],
    [
      'a lifecycle an earlier version made (kind, identity and target as text): the target it stored',
      hook({ kind: 'widget', identity: '{"id":"a"}', target: '{"endpoints":["https://old:8006"]}' }),
      { target: { endpoints: ['https://old:8006'] }, identity: { id: 'a' } },
    ],
    [
      "a lifecycle that keeps ownership and found nothing: the object is the stack's",
      hook({ object: '{"identity":{"id":"a"},"target":"pve"}', found: '' }),
      { target: TARGET, identity: { id: 'a' } },
    ],
    [
      "a lifecycle that found the object, adopted: the stack's to delete",
      { ...hook({ object: '{"identity":{"id":"a"},"target":"pve"}', found: 'exists on x' }), HOMELAB_ADOPT: 'true' },
      { target: TARGET, identity: { id: 'a' } },
    ],
    [
      // Issue 27: a removed construct's hook carries no adopt (the record is anyone's); the state proves it.
      "a lifecycle created with adopt: true, from a hook without adopt (a removed construct): the stack's to delete",
      hook({
        object: '{"identity":{"id":"a"},"target":"pve"}',
        found: foundReading({ inSync: true, summary: '', diff: {} }, true, 'PVE cluster https://n1:8006').found,
      }),
      { target: TARGET, identity: { id: 'a' } },
    ],
    [
      'a lifecycle that found the object, never adopted: kept, whatever target the hook holds',
      hook({ object: '{"identity":{"id":"a"},"target":"old"}', found: 'exists on x' }),
      {
        target: undefined,
        identity: undefined,
        kept:
          'left in place: it existed before this stack declared it, and its construct did not say adopt: true; ' +
          'Terraform forgets it, nothing of it was deleted',
      },
    ],
    [
      "a lifecycle that keeps ownership as one text and found nothing: the object is the stack's",
      hook('\n{"identity":{"id":"a"},"target":"pve"}'),
      { target: TARGET, identity: { id: 'a' } },
    ],
    [
      'a lifecycle that keeps ownership as one text and found the object, never adopted: kept',
      hook('exists on x\nand more\n{"identity":{"id":"a"},"target":"pve"}'),
      {
        target: undefined,
        identity: undefined,
        kept:
          'left in place: it existed before this stack declared it, and its construct did not say adopt: true; ' +
          'Terraform forgets it, nothing of it was deleted',
      },
    ],
    [
      "a lifecycle that keeps ownership as one text and found the object, adopted: the stack's to delete",
      { ...hook('exists on x\n{"identity":{"id":"a"},"target":"pve"}'), HOMELAB_ADOPT: 'true' },
      { target: TARGET, identity: { id: 'a' } },
    ],
    [
      'a lifecycle that keeps ownership as one text, created with adopt: true, from a hook without adopt',
      hook(
        foundReading({ inSync: true, summary: '', diff: {} }, true, 'PVE cluster https://n1:8006').found +
          '\n{"identity":{"id":"a"},"target":"pve"}',
      ),
      { target: TARGET, identity: { id: 'a' } },
    ],
  ])('reads %s', (_, env, wanted) => {
    expect(destroyInput(env)).toEqual(wanted);
  });

  test.each([
    [
      'a lifecycle last applied on another target, naming both',
      hook('{"identity":{"id":"a"},"target":"old"}'),
      new RegExp(
        '^Target changed: the object was last applied on target "old", and this hook holds the settings of ' +
          'target "pve" only; apply the change of target by itself first',
      ),
    ],
    [
      'a lifecycle kept as created on another target, saying to forget it and adopt it there',
      hook({ object: '{"identity":{"id":"a"},"target":"old"}', found: '' }),
      /holds the settings of target "pve" only; its lifecycle keeps the target it was created with: set forget: true/,
    ],
    [
      'a lifecycle kept as created, as one text, on another target',
      hook('\n{"identity":{"id":"a"},"target":"old"}'),
      /holds the settings of target "pve" only; its lifecycle keeps the target it was created with: set forget: true/,
    ],
    ['a text whose part after the newline is not JSON', hook('\nnope'), /^Bad input: HOMELAB_LIFECYCLE is not JSON/],
    [
      'a lifecycle on a label when the hook has no target',
      hook('{"identity":{"id":"a"},"target":"pve"}', null),
      /holds the settings of no target only/,
    ],
    ['a stored input that is not JSON', hook('nope'), /^Bad input: HOMELAB_LIFECYCLE is not JSON/],
    [
      'a stored input of another shape',
      hook('{"identity":"a","target":"pve"}'),
      /^Bad input: HOMELAB_LIFECYCLE.identity/,
    ],
    ['no stored input', {}, /^Missing input: HOMELAB_LIFECYCLE is empty/],
  ])('refuses %s', (_, env, message) => {
    expect(() => destroyInput(env)).toThrow(message);
  });
});
