// The host listing: framed in base64, so no file name or byte on the host can add, hide or rename an entry.
import { fileText, globMatcher, MAX_FILE_BYTES, parseListing } from '../../../../src/discover/host-listing';

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

test('a file name holding a newline and a fake entry stays one name', () => {
  const name = 'evil.service\nF ZmFrZQ== ZmFrZQ==';
  const listing = parseListing(`F ${b64(name)} ${b64('[Unit]\n')}\n@@cdktf-homelab:owned\n${b64('')}\n`);
  expect([...listing.files.keys()]).toEqual([name]);
});

test('links, owned paths and lines of any other shape', () => {
  const listing = parseListing(
    [
      `L ${b64('hidden.service')} ${b64('/dev/null')}`,
      'garbage line',
      `F not-base64! ${b64('x')}`,
      '@@cdktf-homelab:owned',
      b64('/etc/systemd/system/a.service\n/etc/systemd/system/b.service\n'),
    ].join('\n'),
  );
  expect(listing.links).toEqual(new Map([['hidden.service', '/dev/null']]));
  expect(listing.files.size).toBe(0);
  expect(listing.owned).toEqual(new Set(['/etc/systemd/system/a.service', '/etc/systemd/system/b.service']));
});

test('the state directories this login may not search are listed, framed like names', () => {
  const listing = parseListing(
    `H ${b64('/var/lib/cdktf-homelab/intents')}\nH ${b64('/x\nF a b')}\n@@cdktf-homelab:owned\n`,
  );
  expect(listing.hidden).toEqual(['/var/lib/cdktf-homelab/intents', '/x\nF a b']);
  expect(listing.files.size).toBe(0);
});

test('a file is text when it is UTF-8 and within the bound', () => {
  expect(fileText(Buffer.from('[Unit]\nDescription=é\n'))).toEqual({ text: '[Unit]\nDescription=é\n' });
  expect(fileText(Buffer.from([0xc3, 0x28]))).toEqual({ why: 'not UTF-8 text' });
  expect(fileText(Buffer.alloc(MAX_FILE_BYTES + 1, 'a'))).toEqual({ why: 'larger than 256 KiB' });
});

test.each([
  [['hf-*'], 'hf-agent.service', true],
  [['hf-*'], 'xhf-agent.service', false],
  [['probe@?.service'], 'probe@a.service', true],
  [['[ab]*.timer'], 'b1.timer', true],
  [['[!ab]*.timer'], 'b1.timer', false],
  [['a.service'], 'aXservice', false],
  [[], 'anything.service', true],
])('globs %j match %s: %s', (globs, name, matches) => {
  expect(globMatcher(globs)(name)).toBe(matches);
});
