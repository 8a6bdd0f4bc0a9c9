import { batchFilesOf } from '../../../../src/linux/unit-batch';
import { enablesAgainWords, linkedAgainWords, templateBefore } from '../../../../src/linux/unit-template-disable';
import { unit } from '../../handlers/linux/unit-specs';
import { live } from './unit-fixtures';

const spec = unit('p@.service', undefined, { enabled: false, started: false });
const owned = (adopt: boolean, takeOver = false) => ({ adopt, takeOver });
const none = batchFilesOf([]);

describe('a template the apply refuses before any change', () => {
  test('reads no state for its disable in the plan, which then says nothing of it', () => {
    const before = live({ unitFileState: 'enabled' }, { restartOn: undefined });
    expect(templateBefore(spec, [{ sort: 'unit', spec }], none, before, 's')).toBeUndefined();
    expect(templateBefore(spec, [{ sort: 'unit', spec, owned: owned(true) }], none, before, 's')).toBe(before);
    expect(templateBefore(spec, [], none, undefined, 's')).toBeUndefined();
  });
});

describe('an instance the apply refuses before any change', () => {
  test("the template's words name it apart from those enabled again", () => {
    const words = enablesAgainWords('p@.service', ['p@a.service'], ['p@b.service']);
    expect(words).toContain('the apply then enables p@a.service again');
    expect(words).toContain('unlinks p@b.service too, which this batch declares enabled and the apply refuses');
    expect(enablesAgainWords('p@.service', [], ['p@b.service'])).not.toContain('again');
  });
});

describe('the instances the stack does not declare that the disable unlinks', () => {
  test("the template's plan says they are linked again, and where", () => {
    expect(linkedAgainWords('p@.service', { etc: ['p@foo.service'], run: [] })).toBe(
      'the apply then links again p@foo.service, which this stack does not declare and its systemctl disable ' +
        'p@.service unlinks (measured)',
    );
    const both = linkedAgainWords('p@.service', { etc: ['p@e.service'], run: ['p@e.service', 'p@r.service'] });
    expect(both).toContain('links again p@e.service (under /etc, and /run until reboot), p@r.service (under /run');
    expect(linkedAgainWords('p@.service', { etc: [], run: [] })).toBeUndefined();
  });
});
