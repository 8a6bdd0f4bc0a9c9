/**
 * discover over listed Repos a stack cannot declare (an audit, 2026-12-05): a url carrying a token in its query or
 * fragment was declared, the token written into the stack's url and identity; an item without metadata.name was
 * declared as KubeRepo 'undefined'. Each is left out, saying why, and no token reaches the file or the summary.
 */
import { liveKube as live } from './live-kube';
import { identityOf, kubeDeclarations } from '../../../../src/discover/kube';
import { discoveredStack } from '../../../../src/discover/stack';

const repo = (name: string, url: string) => ({ metadata: { name }, spec: { url } });
const stackOf = (found: ReturnType<typeof kubeDeclarations>) =>
  discoveredStack([found], { stack: 's', from: 'cdktf-homelab', language: 'ts', read: [] });

const QUERY_RULE = 'url must be free of a query (?) and a fragment (#)';

test('a Repo whose url carries a token in its query or fragment is left out, its url shown redacted', () => {
  const found = kubeDeclarations(
    live([
      repo('c', 'https://git.example/me/c.git?private_token=glpat-SECRET3'),
      repo('d', 'https://git.example/me/d.git#glpat-SECRET4'),
      repo('e', 'git@git.example:me/e.git?glpat-SECRET5'),
      repo('free', 'https://git.example/me/free.git'),
    ]),
  );
  expect(found.skipped).toEqual([
    { what: 'Repo jr2/c', why: expect.stringContaining(QUERY_RULE) },
    { what: 'Repo jr2/d', why: expect.stringContaining(QUERY_RULE) },
    { what: 'Repo jr2/e', why: expect.stringContaining(QUERY_RULE) },
  ]);
  expect(found.skipped.map((s) => s.why.replace(/.*, got /, ''))).toEqual([
    '"https://git.example/me/c.git?***"',
    '"https://git.example/me/d.git#***"',
    '"***@git.example:me/e.git?***"',
  ]);
  expect(found.declarations.map((d) => d.id)).toEqual(['kube', 'free']);
  const stack = stackOf(found);
  expect(`${stack.text}\n${stack.summary.join('\n')}`).not.toMatch(/SECRET/);
});

test('a token too long for an identity is not shown by the identity rule either', () => {
  const found = kubeDeclarations(live([repo('long', `https://git.example/me/long.git?t=${'S'.repeat(1100)}`)]));
  expect(found.skipped).toEqual([{ what: 'Repo jr2/long', why: expect.stringContaining(QUERY_RULE) }]);
  expect(found.skipped[0]?.why).not.toContain('SSSS');
});

test("a url's identity is its host and path, never its query or fragment", () => {
  expect(identityOf('https://git.example/me/c.git?private_token=SECRET')).toBe('git.example/me/c');
  expect(identityOf('https://git.example/me/d.git#SECRET')).toBe('git.example/me/d');
  expect(identityOf('git@git.example:me/e.git?SECRET')).toBe('git.example/me/e');
});

test('a listed Repo without a name is left out saying so, never declared under "undefined"', () => {
  const found = kubeDeclarations(
    live([
      { metadata: {}, spec: { url: 'git@git.example:me/site.git' } },
      { spec: { url: 'git@git.example:me/bare.git' } },
      { metadata: { name: 7 }, spec: { url: 'git@git.example:me/seven.git' } },
      repo('named', 'git@git.example:me/named.git'),
    ]),
  );
  const why = 'its listing holds no name (metadata.name), which a Repo is declared and found by';
  expect(found.skipped).toEqual([
    { what: 'a Repo in jr2 without a name', why },
    { what: 'a Repo in jr2 without a name', why },
    { what: 'a Repo in jr2 without a name', why },
  ]);
  expect(found.declarations.map((d) => d.id)).toEqual(['kube', 'named']);
  expect(stackOf(found).text).not.toContain('undefined');
});
