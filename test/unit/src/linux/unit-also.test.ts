// The plan's words for a unit whose [Install] says Also=: the apply's enablement step acts on the units it names too.
import { alsoNames, alsoWords } from '../../../../src/linux/unit-also';
import { live, spec } from './unit-fixtures';

const withAlso = `${spec.content}[Install]\nWantedBy=multi-user.target\nAlso=b.service c.socket\nAlso=b.service\n`;

test('the names Also= gives, each once; none without it', () => {
  expect(alsoNames(withAlso)).toEqual(['b.service', 'c.socket']);
  expect(alsoNames(`${withAlso}Also=\n`)).toEqual([]);
  expect(alsoNames(undefined)).toEqual([]);
});

test('said where the apply switches the unit, in the verb it runs; not where it runs none', () => {
  const declaredDisabled = { ...spec, content: withAlso, enabled: false };
  expect(alsoWords(declaredDisabled, live({ unitFileState: 'enabled' }), false)).toBe(
    "its [Install] Also= names b.service, c.socket, which the apply's systemctl disable acts on too (measured)",
  );
  expect(alsoWords(declaredDisabled, live({ unitFileState: 'disabled' }), false)).toBeUndefined();
  expect(alsoWords({ ...spec, enabled: false }, live({ unitFileState: 'enabled' }), false)).toBeUndefined();
});
