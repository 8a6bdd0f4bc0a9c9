/**
 * The links `systemctl enable` makes from [Install] lines (systemd 252's install.c, UpheldBy= from 254), and the
 * host facts its specifiers name: each case here was measured on the systemd 252 test host
 * (test/contract/linux/systemd-links.test.ts runs them for real).
 */
import { parseFacts } from '../../../../src/linux/unit-facts';
import { installLinks } from '../../../../src/linux/unit-install';

const facts = parseFacts(
  [
    'F.',
    'FHhost.example.lan',
    'Fm09e03610113b4fa8a626a0c114d383b3',
    'Fba0fc09c7-e1e0-4e69-948b-e19a31c168b9',
    'Fv6.1.0-21-amd64',
    'FOID=debian',
    'FOVERSION_ID="12"',
    'F:',
    'FSVersion=252.39-1~deb12u2',
    'FSArchitecture=x86-64',
  ].join('\n'),
);

describe('the links an [Install] makes', () => {
  test.each([
    [
      'WantedBy= and RequiredBy= each make a link in the target directory',
      ['WantedBy=a.target b.target', 'RequiredBy=c.target'],
      ['a.target.wants/x.service', 'b.target.wants/x.service', 'c.target.requires/x.service'],
    ],
    ['an Alias= is a link of its own name', ['Alias=y.service'], ['y.service']],
    ['an Alias= of the unit itself makes none', ['Alias=x.service'], []],
    [
      'lines add up, an empty assignment resets',
      ['WantedBy=a.target', 'WantedBy=', 'WantedBy=b.target'],
      ['b.target.wants/x.service'],
    ],
    [
      'comments and other keys are not read',
      ['# WantedBy=a.target', 'Also=z.service', ' WantedBy = b.target '],
      ['b.target.wants/x.service'],
    ],
    [
      'a continued line is one',
      ['WantedBy=a.target \\', '  b.target'],
      ['a.target.wants/x.service', 'b.target.wants/x.service'],
    ],
    [
      'UpheldBy= makes none on systemd 252 (measured)',
      ['UpheldBy=a.target', 'WantedBy=b.target'],
      ['b.target.wants/x.service'],
    ],
    ['no [Install] lines make none', [], []],
  ])('%s', (_, lines, made) => {
    expect(installLinks('x.service', lines, facts)).toEqual({ links: made });
  });

  test('UpheldBy= makes a .upholds/ link from systemd 254 on, and cannot be told without the version', () => {
    const newer = { specifiers: {}, version: 254 };
    expect(installLinks('x.service', ['UpheldBy=a.target'], newer)).toEqual({ links: ['a.target.upholds/x.service'] });
    expect(installLinks('x.service', ['UpheldBy=a.target'])).toEqual({
      unknown: "UpheldBy= makes links from systemd 254 on, and the host's systemd version was not read",
    });
  });

  test("every specifier install.c resolves: the unit's name, root's credentials, the host's facts", () => {
    const lines = [
      'WantedBy=%n-%N-%p-%i-%j.target',
      'WantedBy=u-%u-%U-%g-%G.target h-%H-%l-%q.target m-%m.target b-%b.target',
      'WantedBy=v-%v.target o-%o-%w.target W-%W%B%M%A.target a-%a.target',
    ];
    expect(installLinks('p-q@tty1.service', lines, facts)).toEqual({
      links: [
        'W-.target.wants/p-q@tty1.service',
        'a-x86-64.target.wants/p-q@tty1.service',
        'b-a0fc09c7e1e04e69948be19a31c168b9.target.wants/p-q@tty1.service',
        'h-host.example.lan-host-host.target.wants/p-q@tty1.service',
        'm-09e03610113b4fa8a626a0c114d383b3.target.wants/p-q@tty1.service',
        'o-debian-12.target.wants/p-q@tty1.service',
        'p-q@tty1.service-p-q@tty1-p-q-tty1-q.target.wants/p-q@tty1.service',
        'u-root-0-root-0.target.wants/p-q@tty1.service',
        'v-6.1.0-21-amd64.target.wants/p-q@tty1.service',
      ],
    });
  });

  test.each([
    ['a letter that is no specifier of [Install]', ['WantedBy=a-%I.target'], '%I is no specifier of [Install]'],
    ['a name that is not one once expanded', ['WantedBy=a-%%.target'], 'a-%.target is not a unit name'],
    ["an instance's alias of no instance", ['Alias=plain.service'], 'it cannot alias p@a.service as plain.service'],
    ["an instance's alias of another instance", ['Alias=q@b.service'], 'it cannot alias p@a.service as q@b.service'],
    ['an alias of another type', ['Alias=q@a.socket'], 'it cannot alias p@a.service as q@a.socket'],
  ])('what enable refuses (%s) cannot be compared, and says so, flagged refused', (_, lines, why) => {
    expect(installLinks('p@a.service', lines, facts)).toEqual({
      unknown: `${lines[0]}: systemctl enable refuses it (${why})`,
      refused: true,
    });
  });

  test("an instance's alias is an instance of it, by %i or by a template's name (measured, systemd 252)", () => {
    expect(installLinks('p@a.service', ['Alias=q@%i.service r@.service'], facts)).toEqual({
      links: ['q@a.service', 'r@a.service'],
    });
  });

  test.each([
    ['a quote', ['WantedBy="a.target"'], 'a quote or an escape is not read'],
    ['a host fact not read', ['WantedBy=%H.target'], "the host's %H was not read"],
  ])('what the read cannot tell (%s) says why', (_, lines, why) => {
    expect(installLinks('x.service', lines)).toEqual({ unknown: `${lines[0]}: ${why}` });
  });

  test('an Alias= of a type that may have none is ignored, as systemd ignores it', () => {
    expect(installLinks('x.mount', ['Alias=y.mount', 'WantedBy=a.target'], facts)).toEqual({
      links: ['a.target.wants/x.mount'],
    });
  });
});

describe("the host's facts", () => {
  test('os-release and machine-info values, quoted or not; a hostname without a dot is its own short one', () => {
    const read = parseFacts(
      ['F.', 'FHbox', 'FOID="debian"', "FOVARIANT_ID='server'", 'FIPRETTY_HOSTNAME=Box1'].join('\n'),
    );
    expect(read?.specifiers).toMatchObject({ H: 'box', l: 'box', q: 'Box1', o: 'debian', W: 'server', w: '' });
    expect(read?.version).toBeUndefined();
  });

  test('what enable refuses or the read cannot tell says why', () => {
    const read = parseFacts(['F.', 'FH(none)', 'FOID="de\\x62ian"'].join('\n'));
    expect(read?.specifiers).toMatchObject({
      H: { unknown: 'the host has no hostname, for which systemd uses its default' },
      m: { unknown: 'systemctl enable refuses it (no /etc/machine-id)', refused: true },
      o: { unknown: 'ID in an env file holds an escape the read does not unescape' },
    });
    expect(parseFacts(['F.', 'FHbox'].join('\n'))?.specifiers.o).toEqual({
      unknown: 'systemctl enable refuses it (no os-release)',
      refused: true,
    });
    expect(read?.specifiers.H).not.toHaveProperty('refused');
    expect(parseFacts('@/etc/x.service\n|WantedBy=a.target')).toBeUndefined();
  });
});
