/**
 * The intents an apply leaves before its first effect and the records it writes last (issue 26): their
 * text both ways. The root helper writes them (test/contract/linux/root-helper.test.ts).
 */
import {
  dropInIntentPath,
  intentRest,
  NOT_A_STACK,
  parseIntent,
  parseRecord,
  recordText,
  unitIntentPath,
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

  test('its text after the since= the host stamps is what the helper is sent, and parses back', () => {
    const rest = intentRest({ unit: 'a.service', sha256: SHA, restart: true });
    expect(rest).toBe(`sha256=${SHA} restart=pending unit=a.service`);
    expect(parseIntent(`cdktf-homelab-intent since=1733337600 ${rest}`)).toEqual({
      since: 1733337600,
      sha256: SHA,
      restart: true,
    });
  });

  // An apply stopped between a template's disable and the links it then makes again (unit-template-disable.ts).
  test("a template's names the instances it is to link again, one word each, and parses back", () => {
    const relink = { etc: ['p@foo.service', 'p@a\\x2db.service'], run: ['p@bar.service'] };
    const rest = intentRest({ unit: 'p@.service', restart: false, stack: 's', relink });
    expect(rest).toBe(
      'sha256=- restart=no unit=p@.service stack=s relink=etc:p@foo.service relink=etc:p@a\\x2db.service ' +
        'relink=run:p@bar.service',
    );
    expect(rest).toMatch(/^[A-Za-z0-9=_.:@\\ -]+$/); // the root helper's word rule
    const parsed = parseIntent(`cdktf-homelab-intent since=1 ${rest}`);
    expect(parsed).toEqual({ since: 1, restart: false, stack: 's', relink });
    expect(parseIntent('cdktf-homelab-intent since=1 sha256=- restart=no unit=p@.service')?.relink).toBeUndefined();
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
    expect(intentRest({ unit: 'a.service', restart: false, stack: 'homelab-a' })).toBe(
      'sha256=- restart=no unit=a.service stack=homelab-a',
    );
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
