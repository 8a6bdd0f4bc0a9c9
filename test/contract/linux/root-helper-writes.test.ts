/**
 * The root helper's requests of many writes on real systemd 252, asked by hand as root (issue 30): each file
 * installed exactly, 0644, and named on stdout in the order of the steps, each by its own size and digest; a
 * request cut short, or a file whose bytes are not the ones its step named, leaves the files before it written
 * and named, it and those after untouched, and no temp file (the helper stages them all first, in one private
 * directory of the unit directory, and checks them with one sha256sum); a file changed since the apply read it is
 * left as it is, like a file whose bytes are not the ones named; a failed apply's undo puts back (or removes) a file
 * only while it is the content that apply wrote. Split from root-helper.test.ts.
 */
import { sha256Hex } from '../../../src/core/canonical';
import {
  helperRequest,
  recordStep,
  removeUnitStep,
  restoreStep,
  type UnitObject,
  writeStep,
} from '../../../src/linux/root-helper';
import { askRootHelper, sendRootHelper, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();

const DIR = '/etc/systemd/system';
const STATE = '/var/lib/cdktf-homelab';
const unit = (name: string, directory = DIR): UnitObject => ({ sort: 'unit', directory, name });
const sh = async (command: string) => (await host().exec(command)).stdout.trim();

describe('a request of many writes', () => {
  // All within one pipe buffer (64 KiB), so the request is in the pipe before the helper reads: a read that
  // took more than its file's bytes would take the next file's too.
  const files = ['a', 'b', 'c'].map((name, i) => ({
    object: unit(`rh-m${name}.service`),
    content: `[Unit]\nDescription=${name}\n${`# ${name}${'x'.repeat(77)}\n`.repeat(40 + i * 30)}`,
  }));
  /** The file each write replaces, as its apply read it: none unless a test says. */
  const replaced: Array<string | undefined> = [];
  const request = () =>
    helperRequest(
      files.map(({ object, content }, i) => writeStep(object, content, replaced[i])),
      files.map(({ content }) => content),
    );
  const digest = (path: string) => sh(`sha256sum < ${path} | cut -c1-64`);
  // A temp file, or the private directory the helper stages a request's files in, left in the unit directory.
  const temps = () => sh(`find ${DIR} -maxdepth 2 \\( -name '.rh-m*' -o -name '.cdktf-homelab-root.*' \\) | wc -l`);

  test('installs each file exactly, 0644, and names each on stdout in the order of the steps', async () => {
    const asked = await sendRootHelper(host(), request());
    expect(asked).toMatchObject({ code: 0, stderr: '' });
    expect(asked.stdout).toBe(files.map(({ object }) => `wrote ${DIR}/${object.name}\n`).join(''));
    for (const { object, content } of files) {
      expect(await digest(`${DIR}/${object.name}`)).toBe(sha256Hex(content));
      expect(await sh(`stat -c '%a %U' ${DIR}/${object.name}`)).toBe('644 root');
    }
    await sh(`rm -f ${DIR}/rh-m?.service ${STATE}/kept/rh-m?.service`);
  });

  test('cut short in its second file: the first is written and named, the second not, the third left', async () => {
    await sh(`printf 'old b\\n' > ${DIR}/rh-mb.service && printf 'old c\\n' > ${DIR}/rh-mc.service`);
    const [, second] = files.map(({ content }) => Buffer.byteLength(content));
    const text = request();
    const cut = await sendRootHelper(
      host(),
      text.slice(0, text.length - Buffer.byteLength(files[2]?.content ?? '') - 10),
    );
    expect(cut.code).toBe(1);
    expect(cut.stdout).toBe(`wrote ${DIR}/rh-ma.service\n`);
    expect(cut.stderr.trim()).toBe(
      `${DIR}/rh-mb.service not written: ${(second ?? 0) - 10} bytes arrived, not the ${second} sent (cut short)`,
    );
    expect(await digest(`${DIR}/rh-ma.service`)).toBe(sha256Hex(files[0]?.content ?? ''));
    expect(await sh(`cat ${DIR}/rh-mb.service ${DIR}/rh-mc.service`)).toBe('old b\nold c');
    expect(await temps()).toBe('0');
  });

  test('bytes not the ones a step named: the files before it written and named, it and those after not', async () => {
    await sh(`printf 'old b\\n' > ${DIR}/rh-mb.service && printf 'old c\\n' > ${DIR}/rh-mc.service`);
    await sh(`rm -f ${DIR}/rh-ma.service ${STATE}/kept/rh-m?.service`);
    const [, second] = files;
    const named = second?.content ?? '';
    // The same size, one byte changed: only the digest tells them apart.
    const sent = named.replace('Description=b', 'Description=B');
    const asked = await sendRootHelper(host(), request().replace(named, sent));
    expect(asked.code).toBe(1);
    expect(asked.stdout).toBe(`wrote ${DIR}/rh-ma.service\n`);
    expect(asked.stderr.trim()).toBe(
      `${DIR}/rh-mb.service not written: its bytes' sha256 is ${sha256Hex(sent)}, ` +
        `not the ${sha256Hex(named)} its step named`,
    );
    expect(await digest(`${DIR}/rh-ma.service`)).toBe(sha256Hex(files[0]?.content ?? ''));
    expect(await sh(`cat ${DIR}/rh-mb.service ${DIR}/rh-mc.service`)).toBe('old b\nold c');
    // Nothing of its step ran: the file it would replace is not kept, and nothing after it ran either.
    expect(await sh(`ls -A ${STATE}/kept | grep -c '^rh-m[bc]' || true`)).toBe('0');
    expect(await temps()).toBe('0');
  });

  test('a file changed since its apply read it: those before written and named, it left, no copy kept', async () => {
    await sh(`rm -f ${DIR}/rh-ma.service ${STATE}/kept/rh-m?.service`);
    await sh(`printf 'hand b\\n' > ${DIR}/rh-mb.service && printf 'old c\\n' > ${DIR}/rh-mc.service`);
    replaced.splice(0, 3, undefined, sha256Hex('old b\n'), sha256Hex('old c\n'));
    const asked = await sendRootHelper(host(), request());
    replaced.splice(0, 3);
    expect(asked.code).toBe(1);
    expect(asked.stdout).toBe(`wrote ${DIR}/rh-ma.service\n`);
    expect(asked.stderr.trim()).toBe(
      `${DIR}/rh-mb.service not written: it changed after this apply read it (a file when read, now 7 bytes); ` +
        'left as it is',
    );
    expect(await sh(`cat ${DIR}/rh-mb.service ${DIR}/rh-mc.service`)).toBe('hand b\nold c');
    expect(await sh(`ls -A ${STATE}/kept | grep -c '^rh-m[bc]' || true`)).toBe('0');
    expect(await temps()).toBe('0');
  });

  test('a write step may come before other steps, its file still after the end line', async () => {
    const { object, content } = files[0] as (typeof files)[number];
    const asked = await askRootHelper(
      host(),
      [
        writeStep(object, content, sha256Hex(content)),
        recordStep(object, 'after-the-write'),
        writeStep(unit('rh-md.service'), 'd\n', undefined),
      ],
      [content, 'd\n'],
    );
    expect(asked).toMatchObject({ code: 0, stdout: `wrote ${DIR}/rh-ma.service\nwrote ${DIR}/rh-md.service\n` });
    expect(await sh(`cat ${STATE}/restart-on/rh-ma.service ${DIR}/rh-md.service`)).toBe('after-the-write\nd');
    expect(await digest(`${DIR}/rh-ma.service`)).toBe(sha256Hex(content));
  });

  test('a drop-in of an escaped unit name, in a directory the request makes, by a name sha256sum escapes', async () => {
    const object: UnitObject = { sort: 'drop-in', directory: DIR, unit: 'rh-m\\x2de.service', name: '10-v' };
    const file = `${DIR}/rh-m\\x2de.service.d/10-v.conf`;
    await sh(`rm -rf '${DIR}/rh-m\\x2de.service.d'`);
    const asked = await askRootHelper(host(), [writeStep(object, 'e\n', undefined)], ['e\n']);
    expect(asked).toMatchObject({ code: 0, stdout: `wrote ${file}\n`, stderr: '' });
    expect(await sh(`cat '${file}'; find '${DIR}/rh-m\\x2de.service.d' -name '.*' | wc -l`)).toBe('e\n0');
    await sh(`rm -rf '${DIR}/rh-m\\x2de.service.d'`);
  });
});

describe("a failed apply's undo of a write, only while the file is what that apply wrote", () => {
  const wrote = '[Service]\nExecStart=/bin/true\n';
  const unitFile = `${DIR}/rh-u.service`;
  const dropIn: UnitObject = { sort: 'drop-in', directory: DIR, unit: 'rh-u.service', name: '10-u' };
  const dropInFile = `${DIR}/rh-u.service.d/10-u.conf`;
  const undoOf = { unit: restoreStep(unit('rh-u.service'), wrote), dropIn: restoreStep(dropIn, wrote, false) };
  const newUnit = removeUnitStep({ directory: DIR, name: 'rh-u.service' }, wrote);
  /** The file at `path` (or gone), then `dir` where the drop-in directory is there. */
  const at = (path: string) => sh(`cat ${path} 2>/dev/null || echo gone; [ ! -d ${DIR}/rh-u.service.d ] || echo dir`);

  test.each([
    ['a rewritten unit file as written is put back', 'old', '', undoOf.unit, unitFile, '', 'old'],
    ['a rewritten unit file edited since is left', 'old', 'hand', undoOf.unit, unitFile, 'changed', 'hand'],
    ['a rewritten unit file removed since stays gone', 'old', '-', undoOf.unit, unitFile, 'changed', 'gone'],
    ['a new drop-in as written is removed, its directory too', '', '', undoOf.dropIn, dropInFile, '', 'gone'],
    ['a new drop-in edited since is left', '', 'hand', undoOf.dropIn, dropInFile, 'changed', 'hand\ndir'],
    ['a new drop-in removed since stays gone', '', '-', undoOf.dropIn, dropInFile, '', 'gone'],
    ['a new unit file edited since is left', '', 'hand', newUnit, unitFile, 'changed', 'hand'],
    ['a new unit file removed since stays gone', '', '-', newUnit, unitFile, '', 'gone'],
  ])('%s', async (_, before, hand, step, path, said, left) => {
    await sh(`rm -rf ${unitFile} ${DIR}/rh-u.service.d ${STATE}/kept/rh-u.service ${STATE}/kept/drop-ins${DIR}/rh-u*`);
    if (before !== '') await sh(`printf '${before}\\n' > ${path}`);
    const object = step[0] === 'restore-drop-in' ? dropIn : unit('rh-u.service');
    const replaces = before === '' ? undefined : sha256Hex(`${before}\n`);
    expect(await askRootHelper(host(), [writeStep(object, wrote, replaces)], [wrote])).toMatchObject({ code: 0 });
    if (hand !== '') await sh(hand === '-' ? `rm ${path}` : `printf '${hand}\\n' > ${path}`);
    const undone = await askRootHelper(host(), [step]);
    expect(undone.code).toBe(0);
    expect(undone.stdout.split('\n').filter((line) => !line.startsWith('removed '))).toEqual(
      said === '' ? [''] : [`changed ${path}`, ''],
    );
    expect(await at(path)).toBe(left);
  });
});
