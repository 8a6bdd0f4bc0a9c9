/**
 * What a failed apply's undo says of an object whose file it left (changed after the apply wrote it). Regression: a
 * rewritten unit's read "its links put back" while systemd enabled it again from the file left, whose [Install] may be
 * another's, and neither message said that the file the apply replaced stays kept under /var/lib/cdktf-homelab/kept.
 */
import type { DropInSpec } from '../../../../src/linux/systemd-drop-in';
import type { UnitChange } from '../../../../src/linux/unit-batch';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { type Track, trackOf } from '../../../../handlers/linux/unit-track';
import { leftWords } from '../../../../handlers/linux/unit-undo-file';
import { DIR, unit } from './unit-specs';

const before = (unitFileState: string): LiveUnit => ({
  status: { loadState: 'loaded', activeState: 'active', subState: 'running', unitFileState, needDaemonReload: false },
  fileSha256: 'ab'.repeat(32),
  restartOn: undefined,
});
const track = (change: UnitChange, live: LiveUnit, over: Partial<Track>): Track =>
  Object.assign(
    trackOf({ name: 'x', after: [], change }, live, () => undefined),
    over,
  );
const dropIn: DropInSpec = {
  unit: 'a.service',
  name: '10-v',
  directory: DIR,
  content: '[Service]\n',
  startTimeoutSeconds: 5,
};
const KEPT = "the file this apply replaced is kept, root's alone, at /var/lib/cdktf-homelab/kept";
const LEFT = 'left as it is: it changed after this apply wrote it';

test.each([
  [
    'a rewritten unit enabled before',
    track({ sort: 'unit', spec: unit('a.service') }, before('enabled'), {
      wrote: true,
      replaced: true,
      switched: 'reenable',
    }),
    `; ${DIR}/a.service ${LEFT}; enabled it again from that file's [Install]; ${KEPT}/a.service until the next apply ` +
      'or destroy of it',
  ],
  [
    'a rewritten unit disabled before',
    track({ sort: 'unit', spec: unit('a.service') }, before('disabled'), {
      wrote: true,
      replaced: true,
      switched: 'enable',
    }),
    `; ${DIR}/a.service ${LEFT}; disabled it; ${KEPT}/a.service until the next apply or destroy of it`,
  ],
  [
    'a new unit',
    track({ sort: 'unit', spec: unit('a.service') }, before('disabled'), { wrote: true, switched: 'enable' }),
    `; ${DIR}/a.service ${LEFT}; unlinked it`,
  ],
  [
    'a rewritten drop-in',
    track({ sort: 'drop-in', spec: dropIn }, before('enabled'), { wrote: true, replaced: true }),
    `; ${DIR}/a.service.d/10-v.conf ${LEFT}, and a.service not restarted with it; ${KEPT}/drop-ins${DIR}/a.service.d/` +
      '10-v.conf until the next apply or destroy of it',
  ],
  [
    'a new drop-in',
    track({ sort: 'drop-in', spec: dropIn }, before('enabled'), { wrote: true }),
    `; ${DIR}/a.service.d/10-v.conf ${LEFT}, and a.service not restarted with it`,
  ],
])('the undo of %s whose file it left says what it did and where the replaced file is', (_, left, words) => {
  expect(leftWords(left, false)).toBe(words);
});

test('a new unit the undo stopped says so before the file it left', () => {
  const left = track({ sort: 'unit', spec: unit('a.service') }, before('disabled'), {
    wrote: true,
    switched: 'enable',
  });
  expect(leftWords(left, true)).toBe(`; stopped the unit; ${DIR}/a.service ${LEFT}; unlinked it`);
});
