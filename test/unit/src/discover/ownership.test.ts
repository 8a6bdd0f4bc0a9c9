// What discover must not adopt (issue 27): an object a cdktf-homelab stack's mark is on (two stacks would then
// fight over it), and a Repo whose declaration would change it on the first apply. Each is left out, named with why.
import { sha256Hex } from '../../../../src/core/canonical';
import type { Discovered } from '../../../../src/discover/declaration';
import { parseListing } from '../../../../src/discover/host-listing';
import { kubeDeclarations, type LiveKube } from '../../../../src/discover/kube';
import { hostCandidates, statusEntries, systemdDeclarations } from '../../../../src/discover/systemd';
import { specOf } from '../../../../src/core/fields';
import { parseAs } from '../../../../src/core/parse';
import { diffRepo, type LiveRepo, repoSpecSchema, wantedSecretRef } from '../../../../src/kube/kube-repo';
import { REPO_FIELDS } from '../../../../src/kube/repo-fields';
import type { LiveUnit } from '../../../../src/linux/unit-control';
import { runningStatus } from '../../../support/unit-status';

const file = (text: string) => Buffer.from(text).toString('base64');
const UNIT = '[Unit]\nDescription=x\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const running: LiveUnit['status'] = runningStatus();

/** A host with a hand-made unit, one another stack made (its record), a template and instance, two drop-ins. */
const host = (records: Record<string, string>, unreadable: readonly string[] = []): Discovered => {
  const listing = parseListing(
    [
      ['hand.service', UNIT],
      ['theirs.service', UNIT],
      ['probe@.service', UNIT],
      ['hand.service.d/10-a.conf', '[Service]\nNice=1\n'],
      ['hand.service.d/20-b.conf', '[Service]\nNice=2\n'],
    ]
      .map(([path, text]) => `F ${file(path!)} ${file(text!)}`)
      .concat([`L ${file('multi-user.target.wants/probe@a.service')} ${file('/etc/systemd/system/probe@.service')}`])
      .join('\n'),
  );
  const found = hostCandidates(listing, () => true);
  const live = statusEntries(found).map((entry): LiveUnit => {
    const text = entry.file === undefined ? undefined : listing.files.get(entry.file.replace(/^.*system\//, ''));
    const status = entry.unit === 'probe@.service' ? { ...running, unitFileState: 'indirect' } : running;
    return {
      status: { ...status, activeState: entry.unit === 'probe@.service' ? 'inactive' : 'active' },
      fileSha256: text === undefined ? undefined : sha256Hex(text.toString('utf8')),
      restartOn: entry.record === undefined ? undefined : records[entry.record],
    };
  });
  return systemdDeclarations({ host: 'h' }, found, live, new Set(unreadable));
};

const declaredIds = (discovered: Discovered) => discovered.declarations.map((d) => `${d.construct} ${d.id}`);

describe('systemd objects a stack marked', () => {
  test('a unit, an instance and a drop-in carrying a stack mark are left out as managed already, named', () => {
    // Before the fix each was declared adopt: true (a record whose digest matched), and two stacks fought.
    const theirs = host({
      '/var/lib/cdktf-homelab/restart-on/theirs.service': sha256Hex('[]'),
      '/var/lib/cdktf-homelab/restart-on/probe@a.service': 'x',
      '/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/hand.service.d/20-b.conf': 'cdktf-homelab',
    });
    expect(declaredIds(theirs)).toEqual([
      'SshHost host',
      'SystemdUnit hand',
      'SystemdUnit probe',
      'SystemdDropIn hand-10-a',
    ]);
    expect(theirs.skipped).toEqual([
      {
        what: 'theirs.service',
        why: 'its restartOn record /var/lib/cdktf-homelab/restart-on/theirs.service is there',
        group: 'managed',
      },
      {
        what: 'probe@a.service',
        why: 'its restartOn record /var/lib/cdktf-homelab/restart-on/probe@a.service is there',
        group: 'managed',
      },
      {
        what: '/etc/systemd/system/hand.service.d/20-b.conf',
        why: 'its mark /var/lib/cdktf-homelab/drop-ins/etc/systemd/system/hand.service.d/20-b.conf is there',
        group: 'managed',
      },
    ]);
  });

  test('a mark this login may not read leaves the object out: whose it is cannot be told', () => {
    const mark = '/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/hand.service.d/10-a.conf';
    const read = host({}, [mark]);
    expect(declaredIds(read)).not.toContain('SystemdDropIn hand-10-a');
    expect(read.skipped).toContainEqual({
      what: '/etc/systemd/system/hand.service.d/10-a.conf',
      why: `its mark ${mark} is there but this login may not read it: whose it is cannot be told`,
    });
  });

  test('the status read asks for each drop-in mark and intent, as the drop-in kind reads them', () => {
    const found = hostCandidates(parseListing(`F ${file('a.service.d/x.conf')} ${file('[Service]\n')}`), () => true);
    expect(statusEntries(found)).toEqual([
      {
        unit: 'a.service',
        file: '/etc/systemd/system/a.service.d/x.conf',
        record: '/var/lib/cdktf-homelab/drop-ins/etc/systemd/system/a.service.d/x.conf',
        intent: '/var/lib/cdktf-homelab/intents/drop-ins/etc/systemd/system/a.service.d/x.conf',
      },
    ]);
  });

  test("a unit whose only mark is an interrupted apply's intent is left out as managed already", () => {
    const found = hostCandidates(parseListing(`F ${file('half.service')} ${file(UNIT)}`), () => true);
    const [entry] = statusEntries(found);
    expect(entry?.intent).toBe('/var/lib/cdktf-homelab/intents/half.service');
    const live: LiveUnit = {
      status: running,
      fileSha256: sha256Hex(UNIT),
      restartOn: undefined,
      intent: { since: 1, restart: true },
    };
    expect(systemdDeclarations({ host: 'h' }, found, [live])).toEqual({
      declarations: [],
      skipped: [
        {
          what: 'half.service',
          why: "an apply's intent /var/lib/cdktf-homelab/intents/half.service is there (that apply did not finish)",
          group: 'managed',
        },
      ],
      notes: [],
    });
  });

  test('a mark below a directory this login may not search leaves its object out: whose it is cannot be told', () => {
    // Issue 27: a read identity without access to the mark directory read the drop-in as nobody's.
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const listing = parseListing(
      [`F ${file('a.service.d/x.conf')} ${file('[Service]\n')}`, `H ${b64('/var/lib/cdktf-homelab/drop-ins')}`].join(
        '\n',
      ),
    );
    const found = hostCandidates(listing, () => true);
    const live: LiveUnit = { status: running, fileSha256: sha256Hex('[Service]\n'), restartOn: undefined };
    expect(systemdDeclarations({ host: 'h' }, found, [live]).skipped).toEqual([
      {
        what: '/etc/systemd/system/a.service.d/x.conf',
        why:
          'its mark /var/lib/cdktf-homelab/drop-ins/etc/systemd/system/a.service.d/x.conf is where this login ' +
          'may not search: whose it is cannot be told',
      },
    ]);
  });

  test('a login that may not look into the intents is told so in a note, and its objects are still declared', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const listing = parseListing(`F ${file('a.service')} ${file(UNIT)}\nH ${b64('/var/lib/cdktf-homelab/intents')}\n`);
    const found = hostCandidates(listing, () => true);
    const live: LiveUnit = { status: running, fileSha256: sha256Hex(UNIT), restartOn: undefined };
    const read = systemdDeclarations({ host: 'h' }, found, [live]);
    expect(declaredIds(read)).toEqual(['SshHost host', 'SystemdUnit a']);
    expect(read.notes).toEqual([
      expect.stringMatching(/^this login may not look into \/var\/lib\/cdktf-homelab\/intents: an object/),
    ]);
    const root = hostCandidates(parseListing(`F ${file('a.service')} ${file(UNIT)}\n`), () => true);
    expect(systemdDeclarations({ host: 'h' }, root, [live]).notes).toEqual([]);
  });
});

const kube = (repos: readonly object[], secrets: readonly string[] = []): Discovered =>
  kubeDeclarations({
    cluster: {},
    clusterId: 'kube',
    version: 'v1alpha1',
    namespaces: [{ namespace: 'jr2', repos }],
    secrets: new Set(secrets),
  } satisfies LiveKube);
const repo = (name: string, spec: object, metadata: object = {}) => ({ metadata: { name, ...metadata }, spec });

describe('Repos', () => {
  test.each([
    ['the bound label', { labels: { 'core.jr2.dev/bound': 'true' } }, 'it carries the label core.jr2.dev/bound'],
    [
      'the identity annotation',
      { annotations: { 'core.jr2.dev/identity': 'x' } },
      'it carries the annotation core.jr2.dev/identity',
    ],
  ])('a Repo carrying %s is left out as managed already', (_, metadata, why) => {
    const found = kube([repo('docs', { url: 'https://git.example/me/docs' }, metadata)]);
    expect(found.declarations).toEqual([]);
    expect(found.skipped).toEqual([{ what: 'Repo jr2/docs', why, group: 'managed' }]);
  });

  test('the "no bound label or identity annotation yet" comment is only above Repos that carry neither', () => {
    const found = kube([
      repo('a', { url: 'https://git.example/me/a' }),
      repo('b', { url: 'https://git.example/me/b' }, { annotations: { 'core.jr2.dev/identity': 'b' } }),
    ]);
    expect(found.declarations.filter((d) => d.note?.includes('carries no bound label')).map((d) => d.id)).toEqual([
      'a',
    ]);
  });

  test('an https secretRef naming a missing Secret leaves the Repo out: the first apply would remove it', () => {
    const found = kube([repo('site', { url: 'https://git.example/me/site', secretRef: { name: 'clone-site' } })]);
    expect(found.declarations).toEqual([]);
    expect(found.skipped[0]?.why).toMatch(
      /^its secretRef names the Secret clone-site, which is not in jr2: .*remove it/,
    );
  });

  test('an https secretRef naming a Secret that exists is declared, and the kind states the same secretRef', () => {
    const live = repo('site', { url: 'https://git.example/me/site', secretRef: { name: 'clone-site' } });
    const found = kube([live], ['jr2/clone-site']);
    const props = found.declarations.find((d) => d.construct === 'KubeRepo')!.props;
    expect(props.credentials).toEqual([{ match: 'git.example/me/site', https: { secret: 'clone-site' } }]);
    const { cluster: _, adopt: __, ...own } = props;
    const spec = parseAs(repoSpecSchema, specOf(REPO_FIELDS, own), 'spec');
    const diff = diffRepo(
      spec,
      wantedSecretRef(spec, (secret) => secret === 'clone-site'),
      live as LiveRepo,
    );
    expect(Object.keys(diff).filter((field) => field.startsWith('spec'))).toEqual([]);
  });
});
