/**
 * The sh destroy hook's protocol, pure: a request's NUL-separated fields refused whole when one is not
 * `NAME=value` of a passed variable, or comes twice; the reply keeps each line printable and one line,
 * and the exit code in 0-255; a sweep removes only the leftovers of dead processes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fifoName,
  servingName,
  hookPid,
  isDomainName,
  lockName,
  relayFile,
  replyText,
  requestFields,
  staleEntries,
} from '../../../../../src/core/destroy-relay';
import { REQUEST_FIELDS } from '../../../../../src/core/destroy-relay/fifo-protocol';

describe('requestFields', () => {
  test('reads each NAME=value field, a value holding =, newlines, quotes and shell text kept as it is', () => {
    const value = 'a=b\nc\'"$(rm -rf /)`x`';
    expect(requestFields(`HOMELAB_KIND=systemd-unit\0HOMELAB_LIFECYCLE=${value}\0HOMELAB_ADOPT=\0`)).toEqual({
      HOMELAB_KIND: 'systemd-unit',
      HOMELAB_LIFECYCLE: value,
      HOMELAB_ADOPT: '',
    });
  });

  test.each([
    ['an empty request', ''],
    ['a field with no NUL after it', 'HOMELAB_KIND=x'],
    ['a field with no =', 'HOMELAB_KIND\0'],
    ['a variable the hook does not pass', 'PATH=/tmp\0'],
    ['a variable twice', 'HOMELAB_KIND=a\0HOMELAB_KIND=b\0'],
    ['an empty field', 'HOMELAB_KIND=a\0\0'],
  ])('refuses %s', (_, text) => {
    expect(requestFields(text)).toBeUndefined();
  });
});

// A variable the sh hook does not pass never reaches the leader: HOMELAB_DECLARED, added to the Node hook alone,
// would have left a Repo's replaced lifecycle destroyed with its stored settings whenever a leader served it.
test('the sh hook passes exactly the variables a request may hold', () => {
  const hook = readFileSync(join(__dirname, '../../../../../handlers/destroy-hook.sh'), 'utf8');
  const passed = /^fields='([^']*)'$/m
    .exec(hook)?.[1]
    ?.split(/[\s\\]+/)
    .filter((name) => name !== '');
  expect(passed).toEqual([...REQUEST_FIELDS]);
});

describe('replyText', () => {
  test('prints each line after l, then the exit code', () => {
    expect(replyText({ code: 0, lines: ['one', 'two'] })).toBe('lone\nltwo\nx0\n');
  });

  test('keeps a line with a line break or an escape one printable line', () => {
    expect(replyText({ code: 1, lines: ['a\nx0\n\u001b[2J'] })).toBe('la x0 \\x1b[2J\nx1\n');
  });

  test.each([
    [-1, 'x1'],
    [256, 'x1'],
    [1.5, 'x1'],
    [255, 'x255'],
  ])('answers code %p as %s', (code, exit) => {
    expect(replyText({ code, lines: [] })).toBe(`${exit}\n`);
  });

  test('keeps at most 200 lines, saying how many more there were', () => {
    const lines = replyText({ code: 0, lines: Array.from({ length: 250 }, (_, i) => String(i)) }).split('\n');
    expect(lines).toHaveLength(202);
    expect(lines[199]).toBe('l(51 more lines)');
  });
});

describe('relay folder names', () => {
  test('name a domain lock and a leader FIFO by pid, and read them back', () => {
    expect(relayFile(lockName('linux'))).toEqual({ kind: 'lock', domain: 'linux' });
    expect(relayFile(fifoName('my-pve', 42))).toEqual({ kind: 'fifo', domain: 'my-pve', pid: 42 });
    expect(relayFile(servingName('my-pve', 42))).toEqual({ kind: 'serving', domain: 'my-pve', pid: 42 });
    expect(relayFile('h7.req')).toEqual({ kind: 'request', pid: 7 });
    expect(relayFile('h7.out')).toEqual({ kind: 'reply', pid: 7 });
    expect(relayFile('0123456789abcdef01234567.sock')).toBeUndefined();
  });

  test.each(['linux', 'a-1'])('takes %s as a domain', (name) => expect(isDomainName(name)).toBe(true));
  test.each(['', 'Linux', '../x', 'a b', '1a', undefined])('refuses %p as a domain', (name) =>
    expect(isDomainName(name)).toBe(false),
  );
  test.each(['12', '1'])('takes %s as a hook pid', (line) => expect(hookPid(line)).toBe(Number(line)));
  test.each(['0', '012', '12 ', '', '12345678901', '../1'])('refuses %p as a hook pid', (line) =>
    expect(hookPid(line)).toBeUndefined(),
  );
});

describe('staleEntries', () => {
  test("removes dead processes' files and a lock whose holder is dead or unknown, keeps the rest", () => {
    const alive = (pid: number) => pid === 1;
    const holders: Record<string, number | undefined> = { 'linux.lead': 1, 'pve.lead': 9, 'kube.lead': undefined };
    const names = ['linux.lead', 'pve.lead', 'kube.lead', 'linux.1.in', 'pve.9.in', 'h1.req', 'h1.out', 'h9.req'];
    // A hook's claim (the file it links as the lock) is its own until it dies.
    const claims = ['linux.1.new', 'pve.9.new'];
    // A leader's `serving` file is its own until it dies.
    const serving = ['linux.1.up', 'pve.9.up'];
    expect(staleEntries([...names, ...claims, ...serving, 'x.sock', 'other'], alive, (name) => holders[name])).toEqual([
      'pve.lead',
      'kube.lead',
      'pve.9.in',
      'h9.req',
      'pve.9.new',
      'pve.9.up',
    ]);
  });
});
