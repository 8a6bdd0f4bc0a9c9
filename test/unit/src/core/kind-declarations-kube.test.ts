/**
 * Issue 29 item 1 for the Kubernetes kinds: a Repo and a fetch ask are each one declaration, and every form derived
 * from it has every field. API.md's props tables (and their defaults), the spec and identity the construct
 * synthesizes, the handler boundary's schemas and discover's rebuild each carry every declared field, and the
 * boundary refuses a path no field declares. A field dropped from one form (or a form grown a field of its own)
 * fails here by name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { KubeRepo } from '../../../../constructs/kube/kube-repo';
import { KubeRepoFetch } from '../../../../constructs/kube/kube-repo-fetch';
import { type Fields, propsOfSpec, specOf } from '../../../../src/core/fields';
import { parseAs } from '../../../../src/core/parse';
import { kubeDeclarations } from '../../../../src/discover/kube';
import { repoIdentitySchema, repoSpecSchema } from '../../../../src/kube/kube-repo';
import { repoFetchIdentitySchema, repoFetchSpecSchema } from '../../../../src/kube/kube-repo-fetch';
import { REPO_FETCH_FIELDS } from '../../../../src/kube/repo-fetch-fields';
import { CREDENTIAL_FIELDS, REPO_FIELDS, SECRET_REF_FIELDS } from '../../../../src/kube/repo-fields';
import { parsedEntry } from '../../constructs/batch-apply';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** The rows API.md's table for `name` has: each prop and its default column. */
const documented = (name: string): Map<string, string> => {
  const api = readFileSync(join(ROOT, 'API.md'), 'utf8');
  const section = api.split(`## ${name}\n`)[1]?.split('\n## ')[0] ?? '';
  return new Map([...section.matchAll(/^\| `(\w+)` \| `[^`]*` \| ([^|]*) \|/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
};

/** Every field of a Repo set, none to its default: what each derived form must carry whole. */
const REPO = {
  namespace: 'jr2',
  key: 'site',
  url: 'git@git.example:me/site.git',
  identity: 'git.example/me/site',
  credentials: [{ match: 'git.example/me/site', ssh: { secret: 'deploy-key' } }],
  refreshInterval: '1h',
  version: 'v1beta1',
  deleteOnDestroy: true,
};
const FETCH = { namespace: 'jr2', sandbox: 'box', key: 'site', trigger: 'r1', budgetSeconds: 30, version: 'v1beta1' };

const withPlace = (fields: Fields, place: 'spec' | 'identity') =>
  Object.keys(fields)
    .filter((prop) => (place === 'spec' ? fields[prop]?.spec : fields[prop]?.identity) !== undefined)
    .sort();

/** The spec and identity a construct of `props` synthesizes, read back from the stack. */
const synthesized = (declare: (stack: TerraformStack, cluster: KubeCluster) => void) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  declare(stack, new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' }));
  const json = JSON.parse(Testing.synth(stack));
  const { spec } = parsedEntry(json, 'home', 'it');
  return { spec, identity: JSON.parse(json.resource.terraform_data.it_lifecycle.input).identity };
};

describe('a Repo and a fetch ask are each one declaration', () => {
  test.each([
    ['KubeRepoProps', REPO_FIELDS, ['cluster', 'retired', 'forget', 'adopt', 'takeOver']],
    ['KubeRepoFetchProps', REPO_FETCH_FIELDS, ['cluster', 'takeOver']],
    ['KubeRepoCredential', CREDENTIAL_FIELDS, []],
    ['KubeSecretRef', SECRET_REF_FIELDS, []],
  ])("API.md's %s lists every declared field and the construct's own props, no other", (name, fields, own) => {
    expect([...documented(name).keys()].sort()).toEqual([...Object.keys(fields), ...own].sort());
  });

  test.each([
    ['KubeRepoProps', REPO_FIELDS],
    ['KubeRepoFetchProps', REPO_FETCH_FIELDS],
  ])("API.md's %s shows each declared default as the declaration states it", (name, fields: Fields) => {
    const rows = documented(name);
    for (const [prop, field] of Object.entries(fields)) {
      if (field.default !== undefined) expect([prop, rows.get(prop)]).toEqual([prop, JSON.stringify(field.default)]);
    }
  });

  test("a KubeRepo's spec and identity carry every field placed there, and the boundary takes them", () => {
    const { spec, identity } = synthesized((stack, cluster) => new KubeRepo(stack, 'it', { cluster, ...REPO }));
    expect(Object.keys(spec).sort()).toEqual(withPlace(REPO_FIELDS, 'spec'));
    expect(Object.keys(identity).sort()).toEqual(withPlace(REPO_FIELDS, 'identity'));
    const parsed = parseAs(repoSpecSchema, spec, 'spec');
    expect(propsOfSpec(REPO_FIELDS, parsed)).toEqual({
      props: Object.fromEntries(withPlace(REPO_FIELDS, 'spec').map((prop) => [prop, REPO[prop as keyof typeof REPO]])),
      unknown: [],
    });
    expect(parseAs(repoIdentitySchema, identity, 'identity')).toEqual(identity);
  });

  test("a KubeRepoFetch's spec and identity carry every field placed there, and the boundary takes them", () => {
    const { spec, identity } = synthesized((stack, cluster) => new KubeRepoFetch(stack, 'it', { cluster, ...FETCH }));
    expect(Object.keys(spec).sort()).toEqual(withPlace(REPO_FETCH_FIELDS, 'spec'));
    expect(Object.keys(identity).sort()).toEqual(withPlace(REPO_FETCH_FIELDS, 'identity'));
    expect(parseAs(repoFetchSpecSchema, spec, 'spec')).toEqual(spec);
    expect(parseAs(repoFetchIdentitySchema, identity, 'identity')).toEqual(identity);
  });

  test("the defaults are the declaration's: an unset field reaches the spec and identity as declared", () => {
    const { namespace, key, url, identity: id } = REPO;
    const { spec, identity } = synthesized(
      (stack, cluster) => new KubeRepo(stack, 'it', { cluster, namespace, key, url, identity: id }),
    );
    const fields: Fields = REPO_FIELDS;
    const defaults = Object.entries(fields).filter(([, field]) => field.default !== undefined);
    for (const [prop, field] of defaults) {
      const carried = field.spec === undefined ? identity : spec;
      expect([prop, carried[prop]]).toEqual([prop, field.default]);
    }
  });

  test('discover declares every spec field a live Repo has, each not at its default', () => {
    const spec = parseAs(repoSpecSchema, specOf(REPO_FIELDS, REPO), 'spec');
    const live = {
      metadata: { name: spec.key },
      spec: { url: spec.url, secretRef: { name: 'deploy-key' }, refreshInterval: spec.refreshInterval },
    };
    const found = kubeDeclarations({
      cluster: {},
      clusterId: 'home',
      version: spec.version,
      namespaces: [{ namespace: spec.namespace, repos: [live] }],
      secrets: new Set(),
    });
    expect(found.skipped).toEqual([]);
    const props = found.declarations.find((declaration) => declaration.construct === 'KubeRepo')?.props ?? {};
    const own = Object.keys(props).filter((prop) => !['cluster', 'adopt'].includes(prop));
    expect(own.sort()).toEqual(withPlace(REPO_FIELDS, 'spec'));
    expect(Object.fromEntries(own.map((prop) => [prop, props[prop]]))).toEqual(propsOfSpec(REPO_FIELDS, spec).props);
  });

  test('the boundary refuses a spec or identity path no field declares, at the top and inside a credential', () => {
    const spec = specOf(REPO_FIELDS, REPO);
    expect(() => parseAs(repoSpecSchema, { ...spec, extra: 1 }, 'spec')).toThrow(
      'spec.extra: is not a field of a Repo spec',
    );
    const credentials = [{ match: 'g/', ssh: { secret: 'k', name: 'x' } }];
    expect(() => parseAs(repoSpecSchema, { ...spec, credentials }, 'spec')).toThrow(
      'spec.credentials[0].ssh.name: is not a prop of an object naming a Secret',
    );
    const fetch = specOf(REPO_FETCH_FIELDS, FETCH);
    expect(() => parseAs(repoFetchSpecSchema, { ...fetch, budget: 1 }, 'spec')).toThrow(
      'spec.budget: is not a field of a fetch ask spec',
    );
    const identity = { namespace: 'jr2', key: 'site', version: 'v1alpha1', deleteOnDestroy: false, url: 'x' };
    expect(() => parseAs(repoIdentitySchema, identity, 'identity')).toThrow(
      'identity.url: is not a field of a Repo identity',
    );
  });

  test('the boundary fills a defaulted field a spec leaves out (by hand, or an older synth) with its default', () => {
    const { version: _, ...spec } = specOf(REPO_FETCH_FIELDS, FETCH);
    expect(parseAs(repoFetchSpecSchema, spec, 'spec').version).toBe(REPO_FETCH_FIELDS.version.default);
    expect(() => parseAs(repoFetchSpecSchema, { ...spec, version: 'V1' }, 'spec')).toThrow('spec.version: must be');
  });
});
