/**
 * A unit's record (`/var/lib/cdktf-homelab/restart-on/<unit>`, 0644 so a plain read login can read it) names what its
 * process was started with. It held the sha256 over the digests of every file the unit was loaded from, a drop-in
 * made by hand and readable by root alone included: any local user could test guesses of that file's secret against
 * it offline (an audit, 2026-12-07), on real systemd 252, as the unprivileged `nobody`.
 */
import { createHash } from 'node:crypto';
import { useSystemdHost, unitSpec } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const DIR = '/etc/systemd/system';
const SERVICE = `[Unit]\nDescription=record secret\n[Service]\nExecStart=/bin/sleep infinity\n`;
const SECRET_DROP_IN = `${DIR}/rs-a.service.d/secret.conf`;
const secretText = (password: string) => `[Service]\nEnvironment=DB_PASSWORD=${password}\n`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A command run on the host as `nobody`, who may read what any local user may. */
const asNobody = async (command: string) => {
  const { code, stdout, stderr } = await host().exec(`runuser -u nobody -- sh -c '${command}'`);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return stdout.trim();
};

const SPEC = unitSpec('rs-a.service', SERVICE);

// The file 0600 (systemctl edit's override chmod'ed), or 0644 in a directory others may not search.
test.each([
  ['0600 file', `umask 077 && printf '%s' '${secretText('hunter2')}' > ${SECRET_DROP_IN}`],
  ['0700 directory', `chmod 0700 ${DIR}/rs-a.service.d && printf '%s' '${secretText('hunter2')}' > ${SECRET_DROP_IN}`],
  ['0700 unit directory', `chmod 0700 ${DIR} && printf '%s' '${secretText('hunter2')}' > ${SECRET_DROP_IN}`],
])(
  'the record of a unit with a drop-in only root may read lets no local user test a guess of it (%s)',
  async (_, how) => {
    const made = `chmod 0755 ${DIR} && rm -rf ${DIR}/rs-a.service.d && mkdir -p ${DIR}/rs-a.service.d && ${how}`;
    expect(await host().exec(made)).toMatchObject({ code: 0 });
    expect((await unit.run('apply', SPEC)).code).toBe(0);
    expect(await asNobody(`cat ${SECRET_DROP_IN} 2>/dev/null || echo unreadable`)).toBe('unreadable');

    // What nobody knows: the record, the unit's files as systemd lists them, and the content of each but the secret.
    const record = (await asNobody('cat /var/lib/cdktf-homelab/restart-on/rs-a.service')).split(' ');
    const paths = (await host().exec('systemctl show -p FragmentPath,DropInPaths --value rs-a.service')).stdout
      .split(/\s+/)
      .filter((path) => path !== '');
    expect(paths).toEqual([`${DIR}/rs-a.service`, SECRET_DROP_IN]);
    const unitDigest = sha256(SERVICE); // the declared file: the stack's code is no secret
    const guessed = (password: string) =>
      sha256(`${unitDigest}  ${paths[0]}\n${sha256(secretText(password))}  ${SECRET_DROP_IN}\n`);

    // restartOn, then what the process was started with (content, invocation)
    expect(record.length).toBeGreaterThanOrEqual(3);
    expect(['123456', 'password', 'hunter2'].filter((guess) => record.includes(guessed(guess)))).toEqual([]);
  },
);

test('a same-size edit of that drop-in under the running process still reads as a pending restart', async () => {
  expect((await unit.run('read', SPEC)).result?.in_sync).toBe('true');
  const edit = `printf '%s' '${secretText('hunter3')}' > ${SECRET_DROP_IN} && systemctl daemon-reload`;
  expect(await host().exec(edit)).toMatchObject({ code: 0 });
  expect((await unit.run('read', SPEC)).result?.summary).toMatch(/restart pending: its process started before its/);
});
