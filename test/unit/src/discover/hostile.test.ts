// The code discover writes, against hostile names, comments and urls (issue 27 kept this): quotes, backticks,
// template openings, line ends, comment closers and bidi overrides come back as the same values, and nothing runs.
import * as ts from 'typescript';
import { sha256Hex } from '../../../../src/core/canonical';
import { type Discovered, EnvName, Ref } from '../../../../src/discover/declaration';
import { kubeDeclarations } from '../../../../src/discover/kube';
import { quote } from '../../../../src/discover/literal';
import { pveDeclarations } from '../../../../src/discover/pve';
import { discoveredStack } from '../../../../src/discover/stack';
import { systemdDeclarations } from '../../../../src/discover/systemd';
import { run } from './run-stack';

const inactive = {
  loadState: 'loaded',
  activeState: 'inactive',
  subState: 'dead',
  unitFileState: 'static',
  needDaemonReload: false,
};
const repo = (name: string, url: string) => ({ metadata: { name }, spec: { url } });

/** Quotes, a backtick, a template opening, line ends, comment closers and a bidi override, all at once. */
const WORST = 'a\'b"c`d${(globalThis as any).pwned = 1}e\nf\r\ng*/h/*i//j\u2028k\u202el\\';
/** What the kinds' rules let through of it: no `${`, no line end, no trailing backslash. */
const SOFT = 'a\'b"c`d$ {x}*/e/*f//g\u202eh';

test('the writer holds against hostile names, comments and urls: each value comes back, no code runs', () => {
  // Issue 27 kept this: discover writes what servers answer into code a user runs; the rules are not its guard.
  const hostile: Discovered = {
    declarations: [
      {
        key: 'pve',
        construct: 'ProxmoxCluster',
        id: WORST,
        props: { endpoints: [WORST], [WORST]: { [WORST]: [WORST] } },
      },
      {
        key: WORST,
        construct: 'ProxmoxMetricServer',
        id: WORST,
        props: { cluster: new Ref('pve'), id: WORST, tokenEnv: new EnvName(WORST, WORST), adopt: true },
        note: WORST,
      },
      { key: 'repo', construct: 'KubeRepo', id: WORST, props: { url: WORST, identity: WORST }, note: WORST },
    ],
    skipped: [{ what: WORST, why: WORST }],
    notes: [WORST],
  };
  const stack = discoveredStack([hostile], { stack: WORST, from: WORST, language: 'ts', read: [WORST] });
  const lines = stack.text.split('\n');
  const made = run(stack.text.replace(`from ${quote(WORST)}`, "from 'cdktf-homelab'"));
  expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
  expect(made.map((m) => m.props)).toEqual([
    { endpoints: [WORST], [WORST]: { [WORST]: [WORST] } },
    { cluster: expect.anything(), id: WORST, tokenEnv: WORST, adopt: true },
    { url: WORST, identity: WORST },
  ]);
  expect(made.map((m) => m.id)).toEqual([
    expect.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]*$/),
    expect.any(String),
    expect.any(String),
  ]);
  // Scanned as TypeScript: no template, no block comment, and every string is a single-quoted literal.
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, stack.text);
  const kinds = new Set<ts.SyntaxKind>();
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    kinds.add(kind);
    if (kind === ts.SyntaxKind.StringLiteral) expect(scanner.getTokenText()[0]).toBe("'");
  }
  for (const kind of [
    ts.SyntaxKind.NoSubstitutionTemplateLiteral,
    ts.SyntaxKind.TemplateHead,
    ts.SyntaxKind.MultiLineCommentTrivia,
    ts.SyntaxKind.Unknown,
  ])
    expect(kinds.has(kind)).toBe(false);
  for (const line of lines) expect(line).not.toMatch(/[\r\u2028\u2029\u202e]/);
});

test('values the kinds accept come back through the whole pipeline as they were', () => {
  const live = pveDeclarations(
    {
      cluster: { endpoints: [`https://n1:8006/${SOFT}`] },
      networks: [
        { node: 'n1', address: '10.9.9.9', rows: [{ iface: 'vmbr7', type: 'bridge', comments: `${SOFT}\n${SOFT}` }] },
      ],
    },
    new Set(),
  );
  const url = `https://git.example/${SOFT.replace(/[\s\u202e]/g, '')}`;
  const repos = kubeDeclarations({
    cluster: { context: SOFT },
    clusterId: SOFT,
    version: 'v1alpha1',
    secrets: new Set(),
    namespaces: [{ namespace: 'jr2', repos: [repo('wiki', url)] }],
  });
  const content = `[Unit]\nDescription=${SOFT} \${x}\n`;
  const units = systemdDeclarations(
    { host: 'h' },
    { units: [{ name: 'w.service', content }], instances: [], dropIns: [], skipped: [] },
    [{ status: inactive, fileSha256: sha256Hex(content), restartOn: undefined }],
  );
  for (const part of [live, units, repos]) expect(part.skipped).toEqual([]);
  const made = run(
    discoveredStack([live, units, repos], { stack: 's', from: 'cdktf-homelab', language: 'ts', read: [] }).text,
  );
  const props = (construct: string) => made.find((m) => m.construct === construct)!.props;
  expect(props('ProxmoxCluster').endpoints).toEqual([`https://n1:8006/${SOFT}`]);
  expect(props('ProxmoxNetworkInterface').comments).toBe(`${SOFT}\n${SOFT}`);
  expect(props('KubeRepo').url).toBe(url);
  expect(props('KubeCluster').context).toBe(SOFT);
  expect(props('SystemdUnit').content).toBe(content);
});

// An audit (2026-12-05): a server listing one metric server twice got `two declarations share a key`, naming nothing.
test('a key read twice is refused naming it', () => {
  const twice: Discovered = {
    declarations: [
      { key: 'pve', construct: 'ProxmoxCluster', id: 'pve', props: { endpoints: ['https://pve:8006'] } },
      { key: 'metric-server dup', construct: 'ProxmoxMetricServer', id: 'dup', props: { cluster: new Ref('pve') } },
      { key: 'metric-server dup', construct: 'ProxmoxMetricServer', id: 'dup', props: { cluster: new Ref('pve') } },
    ],
    skipped: [],
    notes: [],
  };
  expect(() =>
    discoveredStack([twice], { stack: 'lab', from: 'cdktf-homelab', language: 'ts', read: ['test'] }),
  ).toThrow('discover: metric-server dup was read twice, so it would be declared twice');
});
