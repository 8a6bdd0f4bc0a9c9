// Unit test of the clone url rule a Repo is judged by at synth and at the handler (issue 16 item 12): the three
// forms git clones over pass, anything else and any credential in the url are refused, and no message shows a token.
import { cloneUrlProblem, credentialProblem, liveUrlShown, redactUrl } from '../../../../src/kube/clone-url';

const FORM = /^a clone url: https:\/\/host\/path/;
const CREDENTIAL = /^free of credentials/;
const QUERY = /^free of a query \(\?\) and a fragment \(#\)/;

test.each([
  'https://git.example/me/site.git',
  'HTTPS://git.example:8443/me/site',
  'ssh://git.example/me/site.git',
  'ssh://git@git.example:2222/me/site.git',
  'git@git.example:me/site.git',
])('%s is a clone url', (url) => expect(cloneUrlProblem(url)).toBeUndefined());

test.each([
  ['not a url', FORM],
  ['ftp://git.example/me/site.git', FORM],
  ['http://git.example/me/site.git', FORM],
  ['file:///srv/git/site.git', FORM],
  ['/srv/git/site.git', FORM],
  ['https://', FORM],
  ['https://git.example', FORM],
  ['https://git.example/me/site .git', FORM],
  ['oauth2:TOKEN@git.example:me/site.git', FORM],
  ['https://oauth2:TOKEN@git.example/me/site.git', CREDENTIAL],
  ['https://TOKEN@git.example/me/site.git', CREDENTIAL],
  ['ssh://git:TOKEN@git.example/me/site.git', CREDENTIAL],
  // An audit (2026-12-05): a token in the query or fragment was declared, and discover wrote it into the stack.
  ['https://git.example/me/c.git?private_token=TOKEN', QUERY],
  ['https://git.example/me/d.git#TOKEN', QUERY],
  ['https://git.example/me/site.git?', QUERY],
  ['ssh://git@git.example/me/site.git?TOKEN', QUERY],
  ['git@git.example:me/site.git#TOKEN', QUERY],
])('%s is refused', (url, rule) => expect(cloneUrlProblem(url)).toMatch(rule));

test('a url over 4096 characters is refused', () =>
  expect(cloneUrlProblem(`https://git.example/${'x'.repeat(4096)}`)).toMatch(FORM));

test('a url only partly known is judged for credentials on its known parts', () => {
  expect(credentialProblem('https://x@git.example/me/site')).toMatch(CREDENTIAL);
  expect(credentialProblem('x')).toBeUndefined();
  expect(credentialProblem('ssh://git@x/me/site')).toBeUndefined();
  expect(credentialProblem('https://git.example/me/site?private_token=x')).toMatch(QUERY);
});

test.each([
  ['https://oauth2:TOKEN@git.example/me/site.git', 'https://***@git.example/me/site.git'],
  ['https://a@TOKEN@git.example/x', 'https://***@git.example/x'],
  ['oauth2:TOKEN@git.example:me/site.git', '***@git.example:me/site.git'],
  ['https://git.example/me/site.git', 'https://git.example/me/site.git'],
  ['https://git.example/me/site.git?private_token=TOKEN', 'https://git.example/me/site.git?***'],
  ['https://git.example/me/site.git#TOKEN', 'https://git.example/me/site.git#***'],
  ['https://git.example/me/site.git?u=a@TOKEN', 'https://git.example/me/site.git?***'],
  ['https://TOKEN@git.example/x?TOKEN', 'https://***@git.example/x?***'],
])('%s is shown as %s', (url, shown) => {
  expect(redactUrl(url)).toBe(shown);
  expect(redactUrl(url)).not.toContain('TOKEN');
});

test.each([
  ['https://oauth2:TOKEN@git.example/me/site.git', 'https://***@git.example/me/site.git'],
  ['ssh://git:TOKEN@git.example/me/site.git', 'ssh://***@git.example/me/site.git'],
  ['oauth2:TOKEN@git.example:me/site.git', '***@git.example:me/site.git'],
  ['https://git.example/me/site.git?private_token=TOKEN', 'https://git.example/me/site.git?***'],
  ['ssh://git@git.example/me/site.git#TOKEN', 'ssh://git@git.example/me/site.git#***'],
  ['git@git.example:me/site.git', 'git@git.example:me/site.git'],
])('live url %s is shown as %s', (url, shown) => expect(liveUrlShown(url)).toBe(shown));

test('a live url that is not text is shown by its kind, never its content', () => {
  expect(liveUrlShown({ u: 'https://TOKEN@git.example/x' })).toBe('(an object)');
  expect(liveUrlShown(['TOKEN'])).toBe('(a list)');
  expect(liveUrlShown(undefined)).toBeUndefined();
});
