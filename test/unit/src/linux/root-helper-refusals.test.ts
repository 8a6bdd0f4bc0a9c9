/**
 * The root helper's own checks, run here by the real sh as an unprivileged user: a step outside its rules is refused,
 * naming the step and the rule, before anything is done, and a request cut short or of another version runs none of
 * its steps. Split from root-helper.test.ts (the request as the handler encodes it).
 */
import { execFileSync } from 'node:child_process';
import { ROOT_HELPER_VERSION, rootHelperText } from '../../../../src/linux/root-helper';

const DIR = '/etc/systemd/system';

describe('the helper, run by sh as nobody, refuses before it does anything', () => {
  /** Runs the helper as nobody (when the tests run as root): a step it failed to refuse could change nothing. */
  const ask = (request: string) => {
    const asNobody = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const [file = 'sh', ...args] = [...asNobody, 'sh', '-c', rootHelperText(), 'cdktf-homelab-root'];
    try {
      execFileSync(file, args, { input: request, stdio: ['pipe', 'pipe', 'pipe'] });
      return { code: 0, stderr: '' };
    } catch (error) {
      const { status, stderr } = error as { status: number; stderr: Buffer };
      return { code: status, stderr: stderr.toString().trim() };
    }
  };
  const request = (...lines: string[]) => [`cdktf-homelab-root ${ROOT_HELPER_VERSION}`, ...lines, 'end', ''].join('\n');
  const NOTHING = '; nothing was done';

  test.each([
    [
      'systemctl kill a.service',
      "systemctl's verb must be one of start, stop, restart, enable, disable, reenable, reset-failed",
    ],
    ['systemctl start --no-reload a.service', 'systemctl start takes no flag but --no-block'],
    ['systemctl enable --runtime a.service', 'systemctl enable takes no flag but --no-reload'],
    ['systemctl start --no-block --runtime a.service', 'each unit must be a unit name ending in a unit type'],
    ['systemctl start -rf.service', 'each unit must be a unit name that starts with neither - nor .'],
    ['systemctl stop ..service', 'each unit must be a unit name that starts with neither - nor .'],
    ['systemctl stop a.conf', 'each unit must be a unit name ending in one of the unit types'],
    ['unmask /tmp a.service', "the directory must be one of systemd's unit directories"],
    [`write-unit ${DIR} ../../tmp/x.service none ${'a'.repeat(64)} 3`, 'the unit must be a unit name of letters'],
    [`write-unit ${DIR} x.service none ${'A'.repeat(64)} 3`, 'the digest must be 64 lowercase hex digits'],
    [`write-unit ${DIR} x.service ${'a'.repeat(64)} 3`, 'write-unit takes a directory, a unit name, the sha256 of'],
    [`write-unit ${DIR} x.service ${'a'.repeat(63)} ${'a'.repeat(64)} 3`, 'the file it replaces must be none or'],
    [`write-drop-in ${DIR} a.service 10-v nothing ${'a'.repeat(64)} 3`, 'the file it replaces must be none or'],
    [`remove-drop-in ${DIR} a.service ../../x`, 'the drop-in name must be letters, digits'],
    [`restore-unit /tmp a.service ${'a'.repeat(64)}`, "the directory must be one of systemd's unit directories"],
    [`restore-unit ${DIR} a.service`, 'restore-unit takes a directory, a unit name and the sha256 of the content'],
    [`restore-unit ${DIR} a.service none`, 'the content its apply wrote must be its sha256, 64 lowercase hex'],
    [`restore-drop-in ${DIR} a.service .x ${'a'.repeat(64)} kept`, 'the drop-in name must be letters, digits'],
    [`restore-drop-in ${DIR} a.service 10-v ${'a'.repeat(64)} gone`, 'the fifth word must be kept or none'],
    [`remove-unit ${DIR} a.service ${'A'.repeat(64)}`, 'the content its apply wrote must be its sha256, 64 lowercase'],
    [`record-unit a.service x$(id)`, 'the text must be words of letters, digits'],
    [`unlink ${DIR} a@.service ../b@.service`, 'the link must be <unit> or <unit>.wants/<unit>'],
    [`unlink ${DIR} a@.service x.target.d/a@x.service`, 'the link must be <unit> or <unit>.wants/<unit>'],
    [`unlink ${DIR} a@.service a/x.target.wants/a@x.service`, 'the link must be <unit> or <unit>.wants/<unit>'],
    [`unlink ${DIR} a@.service ..wants/a@x.service`, 'the link directory must be a unit name'],
    [`unlink ${DIR} a@.service b@.conf`, 'the link must be a unit name ending in one of the unit types'],
    ['unlink /tmp a@.service b@.service', "the directory must be one of systemd's unit directories"],
    [`trace-drop-in ${DIR} a.service 10-v 1e9 8:1`, 'the ctime must be seconds since the epoch'],
    [`trace-drop-in ${DIR} a.service 10-v 1.5 81`, 'the file must be <device>:<inode>'],
    [`trace-drop-in ${DIR} a.service 10-v 1.5 8:1:2`, 'the file must be <device>:<inode>'],
    [`trace-drop-in ${DIR} a.service ../x 1.5 8:1`, 'the drop-in name must be letters, digits'],
    [`clear-drop-in-trace ${DIR} a.service`, 'clear-drop-in-trace takes a directory, a unit name and a drop-in'],
    ['journal a.service 5000', 'the number of lines must be 1 to 999'],
    ['reload now', 'reload takes no arguments'],
    ['reload  ', 'its words must be separated by single spaces'],
    ['sh -c id', 'the steps are: systemctl reload unmask'],
  ])('%p: %s', (line, rule) => {
    const answer = ask(request('reload', line));
    expect(answer.code).toBe(64);
    expect(answer.stderr).toMatch(/^cdktf-homelab-root: step 2 \(.*\) refused: /);
    expect(answer.stderr).toContain(rule);
    expect(answer.stderr.endsWith(NOTHING)).toBe(true);
  });

  test('a step after a write is checked with the others, before the write runs', () => {
    const answer = ask(`${request(`write-unit ${DIR} x.service none ${'a'.repeat(64)} 3`, 'reload now')}abc`);
    expect(answer.code).toBe(64);
    expect(answer.stderr).toMatch(/step 2 \(reload now\) refused: reload takes no arguments; nothing was done$/);
  });

  test('a request cut before its end line, or of another version, runs none of its steps', () => {
    const cut = ask(`cdktf-homelab-root ${ROOT_HELPER_VERSION}\nreload\n`);
    expect(cut).toEqual({ code: 64, stderr: expect.stringMatching(/ended before its end line \(cut short\)/) });
    const other = ask(request('reload').replace(ROOT_HELPER_VERSION, '0123456789ab'));
    expect(other.code).toBe(65);
    expect(other.stderr).toBe(
      `cdktf-homelab-root: this is version ${ROOT_HELPER_VERSION} and the request is for version 0123456789ab: ` +
        'install the one of the cdktf-homelab that sent it (npx cdktf-homelab root-helper prints it)',
    );
  });
});
