/**
 * The root helper's steps on real systemd 252, asked by hand as root (the handlers' own use is every other
 * contract test): intents and records written whole, 0644 in 0755 directories, stamped by the host's clock,
 * the intents a request closes removed after its records (issue 26); a unit's removal takes every link to
 * its file whatever its form, keeps a mask and other units' links, and names what it cannot remove (issue 16
 * item 3a); a write is installed only whole (many in one request: root-helper-writes.test.ts), and the file it
 * replaces is kept (root's alone) for restore to put back exactly, until the object's intent is cleared. Moved
 * here from scratch-tree unit tests, since the helper makes every path itself and takes none from the request.
 */
import { sha256Hex } from '../../../src/core/canonical';
import {
  clearIntentStep,
  destroyUnitStep,
  helperRequest,
  intentStep,
  recordStep,
  removeUnitStep,
  restoreStep,
  type UnitObject,
  unlinkStep,
  writeStep,
} from '../../../src/linux/root-helper';
import { parseIntent } from '../../../src/linux/unit-intent';
import { parseRemoval, parseRemovals } from '../../../src/linux/unit-remove';
import { askRootHelper, sendRootHelper, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();

const DIR = '/etc/systemd/system';
const STATE = '/var/lib/cdktf-homelab';
const SHA = 'ab'.repeat(32);
const unit = (name: string, directory = DIR): UnitObject => ({ sort: 'unit', directory, name });
const dropIn: UnitObject = { sort: 'drop-in', directory: DIR, unit: 'rh-a.service', name: '10-v' };
const sh = async (command: string) => (await host().exec(command)).stdout.trim();
/** The sha256 of the file at `path` as the apply's read takes it, undefined where there is none. */
const current = async (path: string) => (await sh(`[ -f ${path} ] && sha256sum < ${path} | cut -c1-64`)) || undefined;
const exists = async (path: string) => (await sh(`{ [ -e '${path}' ] || [ -L '${path}' ]; } && echo yes`)) === 'yes';

describe('intents and records', () => {
  test("many objects' intents are written whole, 0644 in 0755 directories, stamped by the host clock", async () => {
    const objects = [unit('rh-a.service'), unit('rh-a\\x2db.service'), dropIn];
    await sh(`mkdir -p ${STATE}/intents && chmod 0700 ${STATE}/intents`);
    const asked = await askRootHelper(
      host(),
      objects.map((object) => intentStep(object, `sha256=${SHA} restart=pending unit=rh-a.service`)),
    );
    expect(asked).toMatchObject({ code: 0, stderr: '' });
    const written = parseIntent(await sh(`cat '${STATE}/intents/rh-a\\x2db.service'`));
    expect(written).toEqual({ since: expect.any(Number), sha256: SHA, restart: true });
    expect(Math.abs((written?.since ?? 0) - Date.now() / 1000)).toBeLessThan(60);
    const modes = await sh(
      `stat -c '%a %n' ${STATE} ${STATE}/intents '${STATE}/intents/rh-a.service' ` +
        `${STATE}/intents/drop-ins${DIR}/rh-a.service.d ${STATE}/intents/drop-ins${DIR}/rh-a.service.d/10-v.conf`,
    );
    expect(modes.split('\n').map((line) => line.split(' ')[0])).toEqual(['755', '755', '644', '755', '644']);
    expect(await sh(`ls -A ${STATE} | grep -c '^\\.new' || true`)).toBe('0');
  });

  test('the records are written 0644, then the intents they close removed, in one request', async () => {
    const text = `${SHA} ${'c'.repeat(64)} f00d`;
    const asked = await askRootHelper(host(), [
      recordStep(unit('rh-a.service'), text),
      recordStep(dropIn, 'cdktf-homelab'),
      clearIntentStep(unit('rh-a.service')),
      clearIntentStep(dropIn),
    ]);
    expect(asked).toMatchObject({ code: 0 });
    expect(await sh(`cat ${STATE}/restart-on/rh-a.service`)).toBe(text);
    expect(await sh(`stat -c %a ${STATE}/restart-on/rh-a.service`)).toBe('644');
    expect(await sh(`cat ${STATE}/drop-ins${DIR}/rh-a.service.d/10-v.conf`)).toBe('cdktf-homelab');
    expect(await exists(`${STATE}/intents/rh-a.service`)).toBe(false);
    expect(await exists(`${STATE}/intents/drop-ins${DIR}/rh-a.service.d/10-v.conf`)).toBe(false);
    expect(await exists(`${STATE}/intents/rh-a\\x2db.service`)).toBe(true);
  });
});

describe("a unit's removal", () => {
  const WANTS = `${DIR}/multi-user.target.wants`;
  /** The undo of the apply that wrote the unit's file as it is now. */
  const remove = async (name: string, directory = DIR) => {
    const wrote = (await host().exec(`cat ${directory}/${name} 2>/dev/null; true`)).stdout;
    return parseRemoval((await askRootHelper(host(), [removeUnitStep({ directory, name }, wrote)])).stdout);
  };

  test('every link to the file goes, absolute, relative or an alias; links to other files stay', async () => {
    const local = '/usr/local/lib/systemd/system';
    await sh(
      `mkdir -p ${local} ${DIR}/timers.target.wants && printf '[Service]\\n' > ${local}/rh-l.service && ` +
        `printf x > ${STATE}/restart-on/rh-l.service && ln -sf ${local}/rh-l.service ${WANTS}/rh-l.service && ` +
        `ln -sf ../../../..${local}/rh-l.service ${DIR}/timers.target.wants/rh-l.service && ` +
        `ln -sf ${local}/rh-l.service ${DIR}/alias-of-rh-l.service && ` +
        `ln -sf ${local}/rh-other.service ${WANTS}/rh-other.service && ` +
        `ln -sf /lib/systemd/system/rh-l.service ${WANTS}/rh-l.service.bak`,
    );
    const report = await remove('rh-l.service', local);
    expect([...report.removed].sort()).toEqual(
      [
        `${local}/rh-l.service`,
        `${STATE}/restart-on/rh-l.service`,
        `${WANTS}/rh-l.service`,
        `${DIR}/timers.target.wants/rh-l.service`,
        `${DIR}/alias-of-rh-l.service`,
      ].sort(),
    );
    expect(report.left).toEqual([]);
    expect(await exists(`${WANTS}/rh-other.service`)).toBe(true);
    expect(await exists(`${WANTS}/rh-l.service.bak`)).toBe(true);
  });

  test('a /dev/null mask stays, in the admin directory or in place of the file, and is reported', async () => {
    const local = '/usr/local/lib/systemd/system';
    await sh(`ln -sf /dev/null ${local}/rh-m.service && ln -sf /dev/null ${DIR}/rh-m.service`);
    const report = await remove('rh-m.service', local);
    expect(report).toMatchObject({ removed: [], left: [] });
    expect(report.masks).toEqual([`${local}/rh-m.service`, `${DIR}/rh-m.service`]);
    expect(await exists(`${DIR}/rh-m.service`)).toBe(true);
  });

  test('a link left by a unit whose file is already gone is removed too, and a backslash name is literal', async () => {
    await sh(
      `ln -sf '${DIR}/rh-g\\x2dx.service' '${WANTS}/rh-g\\x2dx.service' && ` +
        `ln -sf ${DIR}/rh-gx2dx.service ${WANTS}/rh-gx2dx.service`,
    );
    expect((await remove('rh-g\\x2dx.service')).removed).toEqual([`${WANTS}/rh-g\\x2dx.service`]);
    expect(await exists(`${WANTS}/rh-gx2dx.service`)).toBe(true);
  });

  test('what cannot be removed is named as left, with why', async () => {
    await sh(`mkdir -p ${STATE}/restart-on/rh-d.service/inside`);
    expect((await remove('rh-d.service')).left).toEqual([
      expect.stringMatching(/restart-on\/rh-d.service: rm: cannot remove .*Is a directory$/),
    ]);
  });
});

// A failed apply's undo of a template's relink removes the alias it made, which no systemctl verb removes alone.
test('unlink removes the one link to the unit file it names, and leaves a link to another file or a file', async () => {
  const local = '/usr/local/lib/systemd/system';
  await sh(
    `mkdir -p ${local} ${DIR}/multi-user.target.wants && printf '[Service]\\n' > ${local}/rh-u@.service && ` +
      `ln -sf ${local}/rh-u@.service ${DIR}/rh-v@.service && ` +
      `ln -sf ${local}/rh-u@.service ${DIR}/multi-user.target.wants/rh-u@x.service && ` +
      `ln -sf ${local}/rh-other@.service ${DIR}/rh-w@.service && printf x > ${DIR}/rh-y@.service`,
  );
  const links = ['rh-v@.service', 'multi-user.target.wants/rh-u@x.service', 'rh-w@.service', 'rh-y@.service'];
  const steps = links.map((link) => unlinkStep({ directory: local, name: 'rh-u@.service' }, link));
  expect(await askRootHelper(host(), steps)).toMatchObject({ code: 0 });
  const left = await Promise.all(links.map((link) => exists(`${DIR}/${link}`)));
  expect(left).toEqual([false, false, true, true]);
  expect(await exists(`${local}/rh-u@.service`)).toBe(true);
});

describe('a destroy request of many units', () => {
  test('a unit whose systemctl disable fails fails in its own part; the units around it are removed', async () => {
    await sh(
      `printf '[Service]\\n' > ${DIR}/rh-x1.service && printf '[Service]\\n' > ${DIR}/rh-x3.service && ` +
        `mkdir ${DIR}/rh-x2.service`,
    );
    const asked = await askRootHelper(
      host(),
      ['rh-x1.service', 'rh-x2.service', 'rh-x3.service'].map((name) =>
        destroyUnitStep({ directory: DIR, name }, { ownsFile: true, disable: name === 'rh-x2.service' }),
      ),
    );
    expect(asked).toMatchObject({ code: 0, stderr: '' });
    const [first, second, third] = parseRemovals(asked.stdout);
    expect(first).toMatchObject({
      name: 'rh-x1.service',
      complete: true,
      report: { removed: [`${DIR}/rh-x1.service`] },
    });
    expect(first?.failed).toBeUndefined();
    // A directory for a file: `systemctl disable` fails, and the step goes no further for this unit.
    expect(second).toMatchObject({ name: 'rh-x2.service', complete: true });
    expect(second?.failed?.join('\n')).toMatch(/^Failed to look up unit file state: Is a directory$/);
    expect(await exists(`${DIR}/rh-x2.service`)).toBe(true);
    await sh(`rmdir ${DIR}/rh-x2.service`);
    expect(third).toMatchObject({
      name: 'rh-x3.service',
      complete: true,
      report: { removed: [`${DIR}/rh-x3.service`] },
    });
    expect(await exists(`${DIR}/rh-x3.service`)).toBe(false);
  });
});

describe('a write', () => {
  const content = '[Service]\nExecStart=/bin/true\n';

  test('installs the file whole, 0644 and root-owned', async () => {
    const asked = await askRootHelper(host(), [writeStep(unit('rh-w.service'), content, undefined)], [content]);
    expect(asked).toMatchObject({ code: 0 });
    expect(await sh(`sha256sum < ${DIR}/rh-w.service | cut -c1-64`)).toBe(sha256Hex(content));
    expect(await sh(`stat -c '%a %U' ${DIR}/rh-w.service`)).toBe('644 root');
  });

  test('a directory where the file goes is refused, never entered, and no temp file is left', async () => {
    await sh(`mkdir -p ${DIR}/rh-dir.service`);
    const refused = await askRootHelper(host(), [writeStep(unit('rh-dir.service'), content, undefined)], [content]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot overwrite directory/);
    expect(await sh(`ls -A ${DIR}/rh-dir.service; find ${DIR} -maxdepth 2 -name '.rh-dir*' | wc -l`)).toBe('0');
    expect(await exists(`${STATE}/kept/rh-dir.service`)).toBe(false); // the write keeps no directory
  });

  test('bytes cut short are not installed, and no temp file is left', async () => {
    const whole = `${content}# more\n`;
    const cut = await sendRootHelper(
      host(),
      helperRequest([writeStep(unit('rh-w.service'), whole, sha256Hex(content))], [whole]).slice(0, -7),
    );
    expect(cut.code).toBe(1);
    expect(cut.stderr.trim()).toBe(
      `${DIR}/rh-w.service not written: ${content.length} bytes arrived, ` +
        `not the ${content.length + 7} sent (cut short)`,
    );
    expect(await sh(`sha256sum < ${DIR}/rh-w.service | cut -c1-64`)).toBe(sha256Hex(content));
    expect(await sh(`find ${DIR} -maxdepth 2 -name '.rh-w*' | wc -l`)).toBe('0');
  });
});

describe('the file a write replaces', () => {
  const content = '[Service]\nExecStart=/bin/true\n';
  const file = `${DIR}/rh-k.service`;
  const kept = `${STATE}/kept/rh-k.service`;
  const seen = (path: string) => sh(`sha256sum < ${path} | cut -c1-64; stat -c '%F %a %U %Y' ${path}`);

  test('is kept, root-only, and restore puts it back exactly: bytes, mode, owner and time', async () => {
    await sh(`printf 'Description=Caf\\351\\n' > ${file} && chmod 0600 ${file} && chown nobody ${file}`);
    await sh(`touch -d @1000000000 ${file}`);
    const before = await seen(file);
    const step = writeStep(unit('rh-k.service'), content, await current(file));
    expect(await askRootHelper(host(), [step], [content])).toMatchObject({ code: 0 });
    expect([await seen(kept), await sh(`stat -c '%a' ${STATE}/kept`)]).toEqual([before, '700']);
    expect(await askRootHelper(host(), [restoreStep(unit('rh-k.service'), content)])).toMatchObject({ code: 0 });
    expect(await seen(file)).toBe(before);
    expect(await sh(`ls -A ${STATE}/kept ${DIR} | grep -c 'rh-k' || true`)).toBe('1'); // the file alone
  });

  test('a link is kept and put back as a link, and its target is never written', async () => {
    const write = async () =>
      askRootHelper(host(), [writeStep(unit('rh-k.service'), content, await current(file))], [content]);
    await sh(`echo target > /root/rh-target && ln -sfn /root/rh-target ${file}`);
    expect(await write()).toMatchObject({ code: 0 });
    expect(await askRootHelper(host(), [restoreStep(unit('rh-k.service'), content)])).toMatchObject({ code: 0 });
    expect(await sh(`readlink ${file}`)).toBe('/root/rh-target');
    // The second write's keep replaces the first's kept link rather than copying through it.
    expect([(await write()).code, (await write()).code]).toEqual([0, 0]);
    expect(await sh(`cat /root/rh-target; readlink ${kept} || echo not-a-link`)).toBe('target\nnot-a-link');
  });

  test('goes with the intent; a restore with nothing kept fails naming the file', async () => {
    await askRootHelper(host(), [writeStep(unit('rh-k.service'), content, await current(file))], [content]);
    expect(await askRootHelper(host(), [clearIntentStep(unit('rh-k.service'))])).toMatchObject({ code: 0 });
    expect(await exists(kept)).toBe(false);
    const none = await askRootHelper(host(), [restoreStep(unit('rh-k.service'), content)]);
    expect([none.code, none.stderr.trim()]).toEqual([1, `${file} not restored: no copy of it was kept`]);
  });
});
