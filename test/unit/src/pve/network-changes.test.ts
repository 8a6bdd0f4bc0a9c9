import { countChangedLines, nodeStagingOf, stagedSummary } from '../../../../src/pve/network-changes';

const HEAD =
  '--- /etc/network/interfaces\t2026-09-13 10:00:00.000000000 +0000\n' +
  '+++ /etc/network/interfaces.new\t2026-09-13 10:01:00.000000000 +0000\n';

describe('countChangedLines', () => {
  test.each<[string, string, number]>([
    ['no diff', '', 0],
    [
      'an added stanza',
      `${HEAD}@@ -2,2 +2,5 @@\n iface lo inet loopback\n \n` +
        '+auto vmbr1\n+iface vmbr1 inet manual\n+\tbridge-ports none\n',
      3,
    ],
    ['a changed line', `${HEAD}@@ -4 +4 @@\n-\tmtu 1500\n+\tmtu 9000\n`, 2],
    // The seed's trap: a removed line whose own text starts with `--` renders as `---` inside a hunk.
    ['a removed line that starts with ---, alone', `${HEAD}@@ -1,3 +1,2 @@\n x\n---- y\n z\n`, 1],
    ['a removed line that starts with ---, beside another change', `${HEAD}@@ -1,3 +1,3 @@\n x\n---- y\n+b\n z\n`, 2],
    ['an added line that starts with +++', `${HEAD}@@ -1,2 +1,3 @@\n x\n++++ y\n z\n`, 1],
    [
      'a new file (diff -N)',
      '--- /etc/network/interfaces\t1970-01-01 00:00:00 +0000\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+z\n',
      2,
    ],
    ['two hunks', `${HEAD}@@ -1,2 +1,2 @@\n-a\n+b\n c\n@@ -10 +10,2 @@\n d\n+e\n`, 3],
    ['a missing final newline', `${HEAD}@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n`, 2],
    ['text with no hunk header at all', 'something odd', 1],
    ['only headers', HEAD, 1],
  ])('counts %s', (_, changes, expected) => {
    expect(countChangedLines(changes)).toBe(expected);
  });
});

describe('nodeStagingOf', () => {
  test.each<[string, unknown, number]>([
    ['an envelope without changes', { data: [] }, 0],
    ['an envelope with changes beside data', { data: [], changes: `${HEAD}@@ -1 +1 @@\n-a\n+b\n` }, 2],
    ['changes that are not text', { data: [], changes: 3 }, 0],
    ['no envelope', null, 0],
  ])('reads %s', (_, envelope, expected) => {
    expect(nodeStagingOf(envelope).lines).toBe(expected);
  });

  test("a bond's slaves are kept by its name, whatever the server names it", () => {
    const data = [
      { iface: '__proto__', type: 'bond', slaves: 'enp3s0 enp4s0' },
      { iface: 'bond0', type: 'bond', slaves: 'none' },
    ];
    const { slaves } = nodeStagingOf({ data });
    expect([...slaves]).toEqual([
      ['__proto__', ['enp3s0', 'enp4s0']],
      ['bond0', []],
    ]);
    expect(slaves.get('constructor')).toBeUndefined();
  });
});

describe('summaries', () => {
  test.each<[number, string]>([
    [0, 'n2: settled'],
    [1, 'n2: 1 staged line'],
    [3, 'n2: 3 staged lines'],
  ])('a node with %i lines reads "%s"', (lines, text) => {
    expect(stagedSummary('n2', lines)).toBe(text);
  });
});
