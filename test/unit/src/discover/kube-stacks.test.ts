/**
 * discover over Repos whose marks name a stack (issue 27 item 3): a Repo another stack's annotation names is left
 * out naming that stack and the one discover writes; one naming that stack says it is already its; one an earlier
 * version marked (no stack) is left out as before; a Repo carrying only the stack annotation is still a stack's.
 */
import { liveKube as live } from './live-kube';
import { kubeDeclarations } from '../../../../src/discover/kube';

const marked = (name: string, annotations: Record<string, string>) => ({
  metadata: { name, labels: { 'core.jr2.dev/bound': 'true' }, annotations },
  spec: { url: `https://git.example/me/${name}` },
});

test('Repos marked by a stack are left out, each naming whose it is', () => {
  const found = kubeDeclarations(
    live([
      marked('theirs', { 'core.jr2.dev/identity': 'x', 'core.jr2.dev/stack': 'blue' }),
      marked('ours', { 'core.jr2.dev/identity': 'x', 'core.jr2.dev/stack': 'green' }),
      marked('older', { 'core.jr2.dev/identity': 'x' }),
      {
        metadata: { name: 'bare', annotations: { 'core.jr2.dev/stack': 'blue' } },
        spec: { url: 'https://g.example/b' },
      },
      { metadata: { name: 'free' }, spec: { url: 'https://git.example/me/free' } },
    ]),
    'green',
  );
  expect(found.skipped).toEqual([
    {
      what: 'Repo jr2/theirs',
      why: 'it carries the label core.jr2.dev/bound: marked by stack "blue", not this stack "green"',
      group: 'managed',
    },
    {
      what: 'Repo jr2/ours',
      why: 'it carries the label core.jr2.dev/bound: marked by this stack "green" already',
      group: 'managed',
    },
    { what: 'Repo jr2/older', why: 'it carries the label core.jr2.dev/bound', group: 'managed' },
    {
      what: 'Repo jr2/bare',
      why: 'it carries the annotation core.jr2.dev/stack: marked by stack "blue", not this stack "green"',
      group: 'managed',
    },
  ]);
  expect(found.declarations.map((d) => d.id)).toEqual(['kube', 'free']);
});

test('a listed object that is not a Repo is left out saying which field, and the rest are still read', () => {
  // A listing is a server's answer: a null item or a label that is not text used to throw or pass as a Repo.
  const found = kubeDeclarations(
    live([
      null,
      { metadata: { name: 'odd', labels: { team: 7 } }, spec: { url: 'https://git.example/me/odd' } },
      { metadata: { name: 'free' }, spec: { url: 'https://git.example/me/free' } },
    ]),
    'green',
  );
  expect(found.skipped).toEqual([
    { what: 'a Repo in jr2 without a name', why: expect.stringMatching(/^its listing is not a Repo's: : /) },
    { what: 'Repo jr2/odd', why: expect.stringMatching(/^its listing is not a Repo's: metadata\.labels\.team: /) },
  ]);
  expect(found.declarations.map((d) => d.id)).toEqual(['kube', 'free']);
});
