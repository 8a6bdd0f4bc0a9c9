// Synth test of a Repo's url rule: a url that is not a clone url is refused; a url carrying a credential is refused
// without the credential in the message, also when a Terraform value supplies it. Every other prop, missing or
// wrong, is in repo-props.test.ts and repo-fetch-props.test.ts.
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo, type KubeRepoProps } from '../../../../constructs/kube/kube-repo';

type Loose<T> = { [K in keyof T]?: unknown };

const repo = (props: Loose<KubeRepoProps>, extra?: (stack: TerraformStack) => Loose<KubeRepoProps>) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const cluster = new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' });
  const base = { cluster, namespace: 'jr2', key: 'site', url: 'git@git.example:me/site.git', identity: 'g/me/site' };
  new KubeRepo(stack, 'site', { ...base, ...props, ...extra?.(stack) } as KubeRepoProps);
  return Testing.synth(stack);
};

/** The error a synth of the Repo with `props` fails with; a synth that passes fails the test. */
const synthError = (props: Loose<KubeRepoProps>): Error => {
  try {
    repo(props);
  } catch (e) {
    return e as Error;
  }
  throw new Error('synth passed');
};

test.each<[string, Loose<KubeRepoProps>, RegExp]>([
  ['a url that is not one', { url: 'not a url' }, /url must be a clone url: https:\/\/host\/path, .*got "not a url"/],
  ['an ftp url', { url: 'ftp://git.example/me/site.git' }, /url must be a clone url: .*got "ftp:\/\/git.example/],
])('a Repo with %s fails at synth', (_, props, message) => expect(() => repo(props)).toThrow(message));

test.each([
  'https://oauth2:TOKEN@git.example/me/site.git',
  'https://TOKEN@git.example/me/site.git',
  'ssh://git:TOKEN@git.example/me/site.git',
])('a Repo url carrying a credential (%s) fails at synth without showing it', (url) => {
  const error = synthError({ url });
  expect(error.message).toMatch(
    /test\/site: url must be free of credentials .*got "(https|ssh):\/\/\*\*\*@git.example/,
  );
  expect(error.message).not.toContain('TOKEN');
});

// An audit (2026-12-05): a token in the query or fragment passed synth and reached the state and the Repo.
test.each([
  ['https://git.example/me/c.git?private_token=TOKEN', /got "https:\/\/git.example\/me\/c.git\?\*\*\*"/],
  ['https://git.example/me/d.git#TOKEN', /got "https:\/\/git.example\/me\/d.git#\*\*\*"/],
])('a Repo url with a query or fragment (%s) fails at synth without showing it', (url, shown) => {
  const error = synthError({ url });
  expect(error.message).toMatch(/test\/site: url must be free of a query \(\?\) and a fragment \(#\)/);
  expect(error.message).toMatch(shown);
  expect(error.message).not.toContain('TOKEN');
});

test('a token in the query of a url built from a Terraform value is refused on the known parts', () => {
  const make = (stack: TerraformStack) => {
    const token = new TerraformVariable(stack, 'token', { type: 'string', sensitive: true });
    return { url: `https://git.example/x?private_token=${token.stringValue}` };
  };
  expect(() => repo({}, make)).toThrow(/url must be free of a query .*got "https:\/\/git.example\/x\?\*\*\*"/);
});

test('a token in a url built from a Terraform value is refused on the known parts', () => {
  const make = (stack: TerraformStack) => {
    const token = new TerraformVariable(stack, 'token', { type: 'string', sensitive: true });
    return { url: `https://${token.stringValue}@git.example/x` };
  };
  expect(() => repo({}, make)).toThrow(/url must be free of credentials .*got "https:\/\/\*\*\*@git.example\/x"/);
});

test('a url that is wholly a Terraform value is left to the handler, which judges it by the same rule', () => {
  const make = (stack: TerraformStack) => ({
    url: new TerraformVariable(stack, 'url', { type: 'string' }).stringValue,
  });
  expect(() => repo({}, make)).not.toThrow();
});
