import type { LinkVerb } from '../../../../src/linux/root-helper';
import type { UnitChange } from '../../../../src/linux/unit-batch';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import type { UnitLinks } from '../../../../src/linux/unit-links';
import { relinkOf } from '../../../../handlers/linux/unit-relink';
import { type Track, trackOf } from '../../../../handlers/linux/unit-track';
import { unit } from './unit-specs';

const before = (unitFileState: string, links?: UnitLinks): LiveUnit => ({
  status: { loadState: 'loaded', activeState: 'inactive', subState: 'dead', unitFileState, needDaemonReload: false },
  fileSha256: undefined,
  restartOn: undefined,
  ...(links === undefined ? {} : { links }),
});
const track = (change: UnitChange, live: LiveUnit, over: Partial<Track> = {}): Track =>
  Object.assign(
    trackOf({ name: 'x', after: [], change }, live, () => undefined),
    over,
  );
const MADE = 'multi-user.target.wants/a.service';

describe('the undo links again', () => {
  const relinked = (over: Partial<Track>, live: LiveUnit) =>
    relinkOf(track({ sort: 'unit', spec: unit('a.service') }, live, over), false);

  test.each<[string, Partial<Track>, LiveUnit, Array<[LinkVerb, string[]]>]>([
    [
      'an enabled unit it disabled, under /etc',
      { switched: 'disable' },
      before('enabled', { etc: [MADE], run: [], install: [MADE] }),
      [['enable', ['a.service']]],
    ],
    // Regression: the undo put back the /etc links alone.
    [
      'one enabled under /etc and /run too, under both',
      { switched: 'disable' },
      before('enabled', { etc: [MADE], run: [MADE], install: [MADE] }),
      [
        ['enable', ['a.service']],
        ['enable-runtime', ['a.service']],
      ],
    ],
    [
      'one it re-enabled, under both: its reenable unlinked /run too',
      { switched: 'reenable' },
      before('enabled', { etc: [MADE], run: [MADE], install: [MADE] }),
      [
        ['enable', ['a.service']],
        ['enable-runtime', ['a.service']],
      ],
    ],
    [
      'one it enabled for good, under /etc alone where its /run links stayed',
      { switched: 'enable' },
      before('enabled-runtime', { etc: [], run: [MADE], install: [MADE] }),
      [],
    ],
    [
      'not a link its [Install] does not make',
      { switched: 'disable' },
      before('enabled', { etc: ['other.target.wants/a.service'], run: [], install: [MADE] }),
      [],
    ],
    [
      'without the links read, as list-unit-files said',
      { switched: 'disable' },
      before('enabled-runtime'),
      [['enable-runtime', ['a.service']]],
    ],
  ])('%s', (_, over, live, expected) => {
    expect(relinked(over, live)).toEqual(expected);
  });
});
