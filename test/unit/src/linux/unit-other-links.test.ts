/**
 * A unit's links in the other unit directories pid1 reads (/etc/systemd/system.control, /usr/local/lib/systemd/system
 * and the rest): the read listed /etc and /run alone, so one made by hand read in sync for a unit declared disabled,
 * and under /run/systemd/system.control the plan said the apply disables it, which `disable --runtime` did not
 * (measured, systemd 252). The decision: the plan and the apply refuse it in the same words, before any change.
 */
import { sha256Hex } from '../../../../src/core/canonical';
import { batchFilesOf } from '../../../../src/linux/unit-batch';
import { diffUnit, summarizeUnit } from '../../../../src/linux/unit-diff';
import { linkDrift, readLinks } from '../../../../src/linux/unit-links';
import { linkWords } from '../../../../src/linux/unit-link-judge';
import { otherLinksWords, splitRoot, unremovableLinks } from '../../../../src/linux/unit-other-links';
import { unitRefusalOf } from '../../../../src/linux/unit-refusal';
import { content, live, spec } from './unit-fixtures';

const E = '/etc/systemd/system';
const C = '/etc/systemd/system.control';
const L = '/usr/local/lib/systemd/system';
const read = (name: string, ...lines: string[]) =>
  readLinks([name], ['@/etc/x', '|WantedBy=a.target', ...lines.map((line) => `L${line}`)].join('\n'))(
    name,
    ['/etc/x'],
    () => true,
  );

describe('the read', () => {
  test("a link in another directory is the unit's by its full path, /etc's and /run's as before", () => {
    const links = read(
      'x.service',
      `${E}/a.target.wants/x.service\t${E}/x.service`,
      `${C}/b.target.wants/x.service\t${E}/x.service`,
      `${L}/y.service\t${E}/x.service`,
      `/run/systemd/system.control/a.target.wants/x.service\t${E}/x.service`,
    );
    expect(links).toEqual({
      etc: ['a.target.wants/x.service'],
      run: [],
      install: ['a.target.wants/x.service'],
      other: [
        `${C}/b.target.wants/x.service`,
        '/run/systemd/system.control/a.target.wants/x.service',
        `${L}/y.service`,
      ],
    });
  });

  test("the unit's own file there, the package's links and the generators' are none of its links", () => {
    const links = read(
      'x.service',
      `${L}/x.service\t/opt/x.service`,
      `/usr/lib/systemd/system/a.target.wants/x.service\t${E}/x.service`,
      `/run/systemd/generator/a.target.wants/x.service\t${E}/x.service`,
    );
    expect(links.other).toBeUndefined();
  });

  test("a template's are its instances', not its own", () => {
    const links = readLinks(['p@.service'], `L${C}/a.target.wants/p@1.service\t${E}/p@.service`)(
      'p@.service',
      ['/etc/p@.service'],
      () => true,
    );
    expect(links.other).toBeUndefined();
  });

  test('a path is split at its root, the longest that holds it', () => {
    expect(splitRoot(`${C}/a.target.wants/x.service`)).toEqual({ root: C, path: 'a.target.wants/x.service' });
    expect(splitRoot(`${E}/x.service`)).toEqual({ root: E, path: 'x.service' });
    expect(splitRoot('/usr/lib/systemd/system/x.service')).toBeUndefined();
  });
});

describe('the decision', () => {
  const other = [`${C}/a.target.wants/x.service`, `${L}/b.target.wants/x.service`];

  test.each([
    ['declared disabled: every one', false, ['a.target.wants/x.service'], other],
    ['declared enabled: those its [Install] does not make', true, ['a.target.wants/x.service'], other.slice(1)],
    ['declared enabled, all made', true, ['a.target.wants/x.service', 'b.target.wants/x.service'], undefined],
    ['declared enabled, what it makes unknown: none', true, undefined, undefined],
  ])('%s', (_, enabled, install, refused) => {
    expect(unremovableLinks(enabled, { other, install })).toEqual(refused);
  });

  test('none found, none refused', () => {
    expect(unremovableLinks(false, { install: [] })).toBeUndefined();
    expect(unremovableLinks(false, undefined)).toBeUndefined();
  });
});

// Regression: under /run/systemd/system.control it read `enabled-runtime`, and the plan said the apply disables it.
describe('the plan and the apply', () => {
  const link = '/run/systemd/system.control/multi-user.target.wants/check.service';
  const links = { etc: [], run: [], install: ['multi-user.target.wants/check.service'], other: [link] };
  const before = live({ unitFileState: 'enabled-runtime' }, { links });
  const words = otherLinksWords(false, [link]);

  test('name the link, why and what to do, in the same words', () => {
    expect(words).toBe(
      `${link}, a link of a unit declared disabled outside ${E} and /run/systemd/system, which pid1 follows and ` +
        `systemctl disable, disable --runtime and reenable leave (measured); remove it by hand (rm ${link}) and ` +
        'apply again',
    );
    const changes = diffUnit(spec, before);
    expect(changes).toEqual({ links: { live: [link], want: [] } });
    expect(summarizeUnit(spec, 'h:22', before, changes)).toBe(
      `unit check.service on h:22 (inactive/dead): the apply refuses it, as it has a link systemctl cannot remove: ` +
        words,
    );
    expect(unitRefusalOf({ sort: 'unit', spec }, before, batchFilesOf([]))).toEqual({
      subject: 'check.service',
      verdict: 'has a link systemctl cannot remove',
      detail: `${words}; nothing was changed`,
    });
  });

  test('a static unit declared disabled is refused too: pid1 wants it all the same (measured)', () => {
    const stat = live({ unitFileState: 'static' }, { links: { ...links, install: [] } });
    expect(diffUnit(spec, stat)).toEqual({ links: { live: [link], want: [] } });
    expect(linkWords(linkDrift(false, stat.links)!, false)).toContain('the apply refuses it');
  });

  test('one declared enabled with a link its [Install] makes there is in sync', () => {
    const enabled = { ...spec, enabled: true, content: `${content}[Install]\nWantedBy=multi-user.target\n` };
    const made = live(
      { unitFileState: 'enabled' },
      { links: { ...links, etc: links.install }, fileSha256: sha256Hex(enabled.content) },
    );
    expect(diffUnit(enabled, made)).toEqual({});
    expect(unitRefusalOf({ sort: 'unit', spec: enabled }, made, batchFilesOf([]))).toBeUndefined();
  });
});

// The advice is typed into a shell: an escaped unit name's `\` would be eaten bare (`rm a\x2db` removes `ax2db`).
test('the rm advice quotes a path the shell would not read as it is', () => {
  const escaped = '/run/systemd/system.control/multi-user.target.wants/a\\x2db.service';
  expect(otherLinksWords(false, [escaped])).toContain(`(rm '${escaped}') and apply again`);
  const plain = '/run/systemd/system.control/multi-user.target.wants/a-b@1.service';
  expect(otherLinksWords(false, [plain, escaped])).toContain(`(rm ${plain} '${escaped}') and apply again`);
});
