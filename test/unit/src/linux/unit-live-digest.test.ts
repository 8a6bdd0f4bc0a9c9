// Regression: a digest of a unit file's or drop-in's live content (one edited by hand may hold
// `Environment=TOKEN=...`) reached the plan's diff (`sha256:<12 hex>`) and the basis the state keeps, where anyone
// holding either could test guessed contents offline. The plan says the file was edited, and the basis holds its stamp.
import { digestOf, sha256Hex } from '../../../../src/core/canonical';
import { diffDropIn, type DropInSpec, summarizeDropIn } from '../../../../src/linux/systemd-drop-in';
import { dropInBasis, dropInMoved, unitBasis, unitMoved } from '../../../../src/linux/unit-basis';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { diffUnit, summarizeUnit } from '../../../../src/linux/unit-diff';
import { unitSpec } from '../../../support/unit-host';

const HAND = '[Service]\nExecStart=/bin/true\nEnvironment=TOKEN=hunter2\n';
const HAND_SHA = sha256Hex(HAND);
const spec = unitSpec('a.service', '[Service]\nExecStart=/bin/true\n');
const dropIn = {
  unit: 'a.service',
  name: '10-v',
  directory: '/etc/systemd/system',
  content: '[Service]\nEnvironment=A=1\n',
} as DropInSpec;

/** The file as the read finds it: its content's sha256 and its stamp (ctime, device:inode, size). */
const found = (sha: string | undefined, stamp: object = { time: 1.5, file: '8:1', bytes: 56 }): LiveUnit => {
  const read = { fileStat: stamp };
  return {
    status: { loadState: 'loaded', activeState: 'active', subState: 'running', unitFileState: 'enabled' },
    fileSha256: sha,
    restartOn: spec.restartOn,
    ...read,
  } as LiveUnit;
};

/** Every 8-hex window of the live file's sha256: none may be in what the plan or the state holds. */
const windows = (sha: string): string[] => Array.from({ length: sha.length - 7 }, (_, at) => sha.slice(at, at + 8));
const holdsNone = (text: string) => expect(windows(HAND_SHA).filter((part) => text.includes(part))).toEqual([]);

test("a hand-edited unit file's diff and summary hold no part of its live sha256", () => {
  const changes = diffUnit(spec, found(HAND_SHA));
  const summary = summarizeUnit(spec, 'h:22', found(HAND_SHA), changes);
  holdsNone(JSON.stringify(changes));
  holdsNone(summary);
  expect(summary).toContain(
    `file is "not the declared content (56 bytes)", want "sha256:${sha256Hex(spec.content ?? '').slice(0, 12)}"`,
  );
});

test("a hand-edited drop-in's diff and summary hold no part of its live sha256", () => {
  const changes = diffDropIn(dropIn, found(HAND_SHA));
  const summary = summarizeDropIn(dropIn, 'h:22', found(HAND_SHA), changes);
  holdsNone(JSON.stringify(changes));
  holdsNone(summary);
  expect(summary).toMatch(/file is "not the declared content \(56 bytes\)", want "sha256:[0-9a-f]{12}"$/);
});

test('an absent file and one without a stamp still read so', () => {
  expect(diffUnit(spec, found(undefined)).file?.live).toBeNull();
  expect(diffDropIn(dropIn, { ...found(HAND_SHA), fileStat: undefined } as LiveUnit).file?.live).toBe(
    'not the declared content',
  );
});

test('the basis of a unit or drop-in is the same whatever its file holds: no guess can be tested against it', () => {
  const other = sha256Hex('[Service]\nExecStart=/bin/true\nEnvironment=TOKEN=guess\n');
  expect(unitBasis(spec, found(HAND_SHA))).toBe(unitBasis(spec, found(other)));
  expect(dropInBasis(dropIn, found(HAND_SHA))).toBe(dropInBasis(dropIn, found(other)));
  holdsNone(unitBasis(spec, found(HAND_SHA)) + dropInBasis(dropIn, found(HAND_SHA)));
});

test.each([
  ['edited in place (a later ctime)', { time: 2.5, file: '8:1', bytes: 56 }],
  ['replaced (another inode)', { time: 1.5, file: '8:2', bytes: 56 }],
  ['edited in the same instant (another size)', { time: 1.5, file: '8:1', bytes: 57 }],
])('a file %s after the plan refuses its unit and its drop-in', (_what, stamp) => {
  expect(unitMoved(spec, 'h:22', unitBasis(spec, found(HAND_SHA)), found(HAND_SHA, stamp))?.message).toMatch(
    /^a\.service on h:22 cannot be applied as planned: it was changed after the plan read it/,
  );
  expect(dropInMoved(dropIn, 'h:22', dropInBasis(dropIn, found(HAND_SHA)), found(HAND_SHA, stamp))?.message).toMatch(
    /cannot be applied as planned: it or its unit was changed after the plan read them/,
  );
});

// An earlier version's basis: 16 hex of the read with the file's sha256 in it, compared as that version did.
const earlier = (prefix: string, sha: string, enablement: string | null) => {
  const read = { file: sha, link: false, load: 'loaded', enablement, fragment: null, running: true };
  return `${prefix}${digestOf(read).slice(0, 16)}`;
};

test.each([
  [
    'unit',
    (sha: string) => unitMoved(spec, 'h:22', `${earlier('unit read ', sha, 'enabled')} drop-ins none`, found(HAND_SHA)),
  ],
  [
    'drop-in',
    (sha: string) =>
      dropInMoved(dropIn, 'h:22', `${earlier('drop-in read ', sha, null)} drop-ins none`, found(HAND_SHA)),
  ],
])(
  'a %s planned by an earlier version applies when its file is as read, and is refused when edited',
  (_kind, moved) => {
    expect(moved(HAND_SHA)).toBeUndefined();
    expect(moved(sha256Hex('before the edit'))?.message).toMatch(/cannot be applied as planned/);
  },
);
