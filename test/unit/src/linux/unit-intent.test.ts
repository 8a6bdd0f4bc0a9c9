/**
 * The intents an apply leaves before its first effect and the records it writes last (issue 26):
 * their text both ways, and their scripts run by the real shell on a scratch tree, where the
 * intents come out readable like the records (issue 26: a read login's plan sees them) and every file whole.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  dropInIntentPath,
  NOT_A_STACK,
  parseIntent,
  parseRecord,
  recordScript,
  recordText,
  unitIntentPath,
  writeIntentsScript,
} from '../../../../src/linux/unit-intent';

const SHA = 'ab'.repeat(32);
const dropIn = { unit: 'fa-u1.service', name: '10-v', directory: '/etc/systemd/system' };

describe('an intent', () => {
  test('a unit and a drop-in each have one under the intents directory', () => {
    expect(unitIntentPath({ name: 'fa-u1.service' })).toBe('/var/lib/cdktf-homelab/intents/fa-u1.service');
    expect(dropInIntentPath(dropIn)).toBe(
      '/var/lib/cdktf-homelab/intents/drop-ins/etc/systemd/system/fa-u1.service.d/10-v.conf',
    );
  });

  test.each([
    [
      `cdktf-homelab-intent since=1733337600 sha256=${SHA} restart=pending unit=a.service`,
      { since: 1733337600, sha256: SHA, restart: true },
    ],
    [
      'cdktf-homelab-intent since=1733337600 sha256=- restart=no unit=a@x.service',
      { since: 1733337600, restart: false },
    ],
    ['cdktf-homelab-intent since=soon sha256=- restart=no unit=a.service', undefined],
    ['something else entirely', undefined],
  ])('%s parses as %p', (text, intent) => {
    expect(parseIntent(text)).toEqual(intent);
  });
});

describe('a record', () => {
  test("an earlier version's record is its restartOn alone; this one's adds the content and run it started", () => {
    expect(parseRecord(`${SHA}\n`)).toEqual({ first: SHA });
    expect(recordText(SHA, { content: 'c'.repeat(64), invocation: 'f00d' })).toBe(`${SHA} ${'c'.repeat(64)} f00d`);
    expect(parseRecord(recordText(SHA, { content: 'c'.repeat(64), invocation: 'f00d' }))).toEqual({
      first: SHA,
      startedWith: { content: 'c'.repeat(64), invocation: 'f00d' },
    });
    expect(recordText('cdktf-homelab', { content: 'c'.repeat(64) })).toBe('cdktf-homelab');
  });
});

// Issue 27 item 3: the mark is per stack, not per host.
describe('the stack an intent and a record name', () => {
  const started = { content: 'c'.repeat(64), invocation: 'f00d' };

  test('a record names its stack last, so an earlier version still reads the rest; one without names none', () => {
    expect(recordText(SHA, started, 'homelab-a')).toBe(`${SHA} ${'c'.repeat(64)} f00d stack=homelab-a`);
    expect(parseRecord(recordText(SHA, started, 'homelab-a'))).toEqual({
      first: SHA,
      startedWith: started,
      stack: 'homelab-a',
    });
    expect(parseRecord(`cdktf-homelab stack=b.2\n`)).toEqual({ first: 'cdktf-homelab', stack: 'b.2' });
    expect(parseRecord(recordText(SHA, started))).toEqual({ first: SHA, startedWith: started });
  });

  test('a stack word the rule refuses (edited by hand) names no stack one could be: never this one', () => {
    expect(parseRecord(`${SHA} stack=-x`).stack).toBe(NOT_A_STACK);
    expect(parseRecord(`${SHA} stack=`).stack).toBe(NOT_A_STACK);
  });

  test("an intent names the stack whose apply wrote it; an earlier version's names none", () => {
    const script = writeIntentsScript([{ path: '/i/a', unit: 'a.service', restart: false, stack: 'homelab-a' }]);
    expect(script).toContain("'sha256=- restart=no unit=a.service stack=homelab-a'");
    expect(parseIntent('cdktf-homelab-intent since=1 sha256=- restart=no unit=a.service stack=homelab-a')).toEqual({
      since: 1,
      restart: false,
      stack: 'homelab-a',
    });
    expect(parseIntent('cdktf-homelab-intent since=1 sha256=- restart=no unit=a.service')).toEqual({
      since: 1,
      restart: false,
    });
  });
});

describe('the scripts, run by sh on a scratch tree', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'unit-intent-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  /** The script with the state directory moved under `root`. */
  const run = (script: string) =>
    execFileSync('sh', ['-s'], { input: script.replaceAll('/var/lib/cdktf-homelab', `${root}/state`) });
  const at = (path: string) => path.replace('/var/lib/cdktf-homelab', `${root}/state`);
  const mode = (path: string) => (statSync(at(path)).mode & 0o777).toString(8);

  test('the intents of many objects are written whole, 0644 in 0755 directories, stamped by the host clock', () => {
    const entries = [
      { path: unitIntentPath({ name: 'a.service' }), unit: 'a.service', sha256: SHA, restart: true },
      { path: unitIntentPath({ name: "it's.service" }), unit: "it's.service", restart: false },
      { path: dropInIntentPath(dropIn), unit: 'fa-u1.service', sha256: SHA, restart: true },
    ];
    const script = writeIntentsScript(entries);
    expect(script.match(/mktemp|date -u|^mv /gm)).toEqual(['date -u', 'mktemp', 'mv ', 'mv ']);
    run(script);
    const written = parseIntent(readFileSync(at(entries[0]?.path ?? ''), 'utf8'));
    expect(written).toEqual({ since: expect.any(Number), sha256: SHA, restart: true });
    expect(Math.abs((written?.since ?? 0) - Date.now() / 1000)).toBeLessThan(60);
    expect(readFileSync(at(entries[1]?.path ?? ''), 'utf8')).toMatch(/ restart=no unit=it's.service\n$/);
    expect([
      mode(entries[0]?.path ?? ''),
      mode(entries[2]?.path ?? ''),
      mode('/var/lib/cdktf-homelab/intents'),
    ]).toEqual(['644', '644', '755']);
    expect(mode('/var/lib/cdktf-homelab')).toBe('755');
    expect(readdirSync(`${root}/state`).sort()).toEqual(['intents']);
  });

  test('the records are written 0644 and the intents they close removed, in one script', () => {
    const intent = unitIntentPath({ name: 'a.service' });
    run(writeIntentsScript([{ path: intent, unit: 'a.service', restart: true }]));
    const record = '/var/lib/cdktf-homelab/restart-on/a.service';
    run(recordScript([{ path: record, text: `${SHA} ${'c'.repeat(64)} f00d` }], [intent]));
    expect(readFileSync(at(record), 'utf8')).toBe(`${SHA} ${'c'.repeat(64)} f00d\n`);
    expect(mode(record)).toBe('644');
    expect(readdirSync(at('/var/lib/cdktf-homelab/intents'))).toEqual([]);
    expect(readdirSync(`${root}/state`).sort()).toEqual(['intents', 'restart-on']);
  });
});
