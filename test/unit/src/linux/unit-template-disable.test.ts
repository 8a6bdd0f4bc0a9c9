import { batchFilesOf } from '../../../../src/linux/unit-batch';
import {
  enablesAgainWords,
  intentRelinks,
  linkedAgain,
  linkedAgainWords,
  reenabledInstances,
  stoppedRelinks,
  stoppedRelinkWords,
  templateBefore,
} from '../../../../src/linux/unit-template-disable';
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

// Regression: an apply stopped after `systemctl disable p@.service` and before it linked p@foo.service again left it
// unlinked, and no link said it was there: the next apply left it so. Its intent names it now.
describe('the instances an apply stopped after the disable left unlinked', () => {
  const wants = (name: string) => `multi-user.target.wants/${name}`;
  const left = (relink: { etc: string[]; run: string[] }, etc: string[] = [], run: string[] = []) =>
    live(
      { unitFileState: 'disabled' },
      { intent: { since: 1, restart: false, relink }, links: { etc: etc.map(wants), run: run.map(wants) } },
    );

  test("are linked again where its intent says, but those linked since, and none but the template's own", () => {
    const before = left(
      { etc: ['p@foo.service', 'p@linked.service', 'q@other.service', 'p@bad/name.service'], run: ['p@bar.service'] },
      ['p@linked.service'],
    );
    expect(stoppedRelinks(spec, before)).toEqual({ etc: ['p@foo.service'], run: ['p@bar.service'] });
    const batch = [{ sort: 'unit' as const, spec }];
    expect(linkedAgain(spec, before, false, batch)).toEqual({ etc: ['p@foo.service'], run: ['p@bar.service'] });
  });

  test('but those the batch declares, which its own apply links', () => {
    const before = left({ etc: ['p@foo.service'], run: [] });
    const { content: _, ...declared } = unit('p@foo.service', undefined, { enabled: true });
    const instance = { sort: 'instance' as const, spec: { ...declared, template: 'p@.service' } };
    const batch = [{ sort: 'unit' as const, spec }, instance];
    expect(linkedAgain(spec, before, false, batch)).toEqual({ etc: [], run: [] });
  });

  test("the template's plan says so in words", () => {
    expect(stoppedRelinkWords('p@.service', { etc: ['p@foo.service'], run: ['p@bar.service'] })).toBe(
      'the apply links again p@bar.service (under /run), p@foo.service, which this stack does not declare and an ' +
        'apply stopped after its systemctl disable p@.service left unlinked',
    );
    expect(stoppedRelinkWords('p@.service', { etc: [], run: [] })).toBeUndefined();
  });
});

// Regression (measured, systemd 252): a rewritten template's reenable runs `systemctl disable --runtime` of it first,
// which unlinks its instances under /run until a later pass links them there again; an apply stopped in between left
// p@bar.service unlinked, and its intent named nothing. The intent names what the rewrite re-enables now.
describe("the instances a template's rewrite re-enables", () => {
  const wants = (name: string) => `multi-user.target.wants/${name}`;
  const content = '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\nDefaultInstance=a\n';
  const enabled = unit('p@.service', content, { enabled: true, started: false });
  const before = live(
    { unitFileState: 'enabled' },
    {
      links: {
        etc: ['p@a.service', 'p@b.service', 'p@foo.service', 'q@x.service'].map(wants),
        run: [wants('p@bar.service')],
        install: [wants('p@a.service')],
        defaultInstance: 'p@a.service',
      },
    },
  );
  const { content: _, ...declared } = unit('p@b.service', undefined, { enabled: true });
  const batch = [
    { sort: 'unit' as const, spec: enabled },
    { sort: 'instance' as const, spec: { ...declared, template: 'p@.service' } },
  ];

  test('are those linked before that the batch does not declare, and only when it rewrites the file', () => {
    expect(reenabledInstances(enabled, before, true, batch)).toEqual({
      etc: ['p@a.service', 'p@foo.service'],
      run: ['p@bar.service'],
    });
    expect(reenabledInstances(enabled, before, false, batch)).toEqual({ etc: [], run: [] });
  });

  test("its intent names them, but its default instance, whose links the template's own enable makes", () => {
    expect(intentRelinks(enabled, before, true, batch)).toEqual({ etc: ['p@foo.service'], run: ['p@bar.service'] });
    expect(intentRelinks(enabled, before, false, batch)).toEqual({ etc: [], run: [] });
  });
});
