// Unit test of the Repo's handler boundary (issue 16 item 12): a url only Terraform knew at synth is judged by the
// same clone url rule before any connection, in the one-object apply and in the batch apply, and never shown with
// its credential.
import * as z from 'zod/mini';
import { kubeDomain } from '../../../../handlers/kube/domain';
import type { KubeSession } from '../../../../handlers/kube/session';
import { applyBatch } from '../../../../src/core/batch-apply';
import { canonicalJson } from '../../../../src/core/canonical';
import type { HandlerDomain } from '../../../../src/core/kind';
import { APPLY, ENV } from '../../../../src/core/protocol';
import type { RepoSpec } from '../../../../src/kube/kube-repo';
import { invoke } from '../../../support/run-handler';
import { VirtualClock } from '../../../support/virtual-clock';

const spec = (url: string): RepoSpec => ({
  namespace: 'jr2',
  key: 'site',
  version: 'v1alpha1',
  url,
  identity: 'git.example/me/site',
  credentials: [],
  refreshInterval: '5m',
});

/** The kube domain, counting its connections: a refused input must cost none. */
const counted = () => {
  const connects: string[] = [];
  const domain: HandlerDomain<KubeSession, unknown> = {
    ...kubeDomain(),
    target: z.unknown(),
    connect: async () => {
      connects.push('connect');
      throw new Error('no cluster in this test');
    },
    close: async () => undefined,
  };
  return { domain, connects };
};

test.each([
  ['not a url', /Bad input: spec\.url: must be a clone url: https:\/\/host\/path.*got "not a url"/],
  ['ftp://git.example/me/site.git', /Bad input: spec\.url: must be a clone url: .*got "ftp:\/\/git.example/],
  [
    'https://oauth2:TOKEN@git.example/me/site.git',
    /spec\.url: must be free of credentials .*got "https:\/\/\*\*\*@git/,
  ],
  [
    'https://git.example/me/site.git?private_token=TOKEN',
    /spec\.url: must be free of a query \(\?\) and a fragment \(#\).*got "https:\/\/git.example\/me\/site.git\?\*\*\*"/,
  ],
])('a one-object apply of url %s is refused before connecting', async (url, message) => {
  const { domain, connects } = counted();
  const run = await invoke(domain, 'kube-repo', 'apply', {}, spec(url), {}, new VirtualClock());
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toContain('TOKEN');
  expect(connects).toEqual([]);
});

test('a batch apply refuses a credential url by name, shows no token and connects for nothing', async () => {
  const { domain, connects } = counted();
  const log: string[] = [];
  const env = {
    [ENV.target]: canonicalJson({}),
    [APPLY.drifted]: 'site',
    [`${APPLY.objectPrefix}0`]: canonicalJson({
      kind: 'kube-repo',
      spec: spec('https://TOKEN@git.example/me/site.git'),
      after: [],
    }),
  };
  const context = { env: {}, log: (l: string) => log.push(l), clock: new VirtualClock() };
  await expect(applyBatch(domain, env, context)).rejects.toThrow(/1 of 1 objects .* were not applied \(site\)/);
  expect(log.join('\n')).toMatch(/site: not applied: Bad input: spec\.url: must be free of credentials/);
  expect(log.join('\n')).not.toContain('TOKEN');
  expect(connects).toEqual([]);
});
