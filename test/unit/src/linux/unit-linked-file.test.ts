/**
 * A unit file that is a symbolic link (test/contract/linux/systemd-linked-file.test.ts): `systemctl disable` removes
 * it, so the diff names it and the apply writes the file in its place, whatever its digest.
 */
import { mustWrite } from '../../../../src/linux/unit-batch';
import { diffUnit, LINKED_FILE } from '../../../../src/linux/unit-diff';
import { live, spec } from './unit-fixtures';

test('a unit file of the declared content that is a symbolic link is drift the apply writes over', () => {
  const linked = live({ activeState: 'active', subState: 'running', unitFileState: 'enabled' }, { fileIsLink: true });
  const declared = { ...spec, enabled: true, started: true };
  expect(diffUnit(declared, linked)).toMatchObject({ file: { live: LINKED_FILE } });
  expect(mustWrite({ sort: 'unit', spec: declared }, linked)).toBe(true);
  expect(diffUnit(declared, { ...linked, fileIsLink: false })).not.toHaveProperty('file');
  expect(mustWrite({ sort: 'unit', spec: declared }, { ...linked, fileIsLink: false })).toBe(false);
});
