import { execFileSync } from 'node:child_process';
import { installLinks, linkDrift, LINKS_COMMAND, linkWords, readLinks } from '../../../../src/linux/unit-links';

describe('the links an [Install] makes', () => {
  test.each([
    [
      'WantedBy= and RequiredBy= each make a link in the target directory',
      ['WantedBy=a.target b.target', 'RequiredBy=c.target'],
      ['a.target.wants/x.service', 'b.target.wants/x.service', 'c.target.requires/x.service'],
    ],
    ['an Alias= is a link of its own name', ['Alias=y.service'], ['y.service']],
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
    ['no [Install] lines make none', [], []],
  ])('%s', (_, lines, made) => {
    expect(installLinks('x.service', lines)).toEqual(made);
  });

  test("an instance's specifiers are expanded with its name", () => {
    expect(installLinks('p@tty1.service', ['WantedBy=getty@%i.target %p.target'])).toEqual([
      'getty@tty1.target.wants/p@tty1.service',
      'p.target.wants/p@tty1.service',
    ]);
  });

  test.each([
    ['a specifier it does not expand', ['WantedBy=%H.target']],
    ['a quote', ['WantedBy="a.target"']],
    ['a name that is not one', ['WantedBy=nothing']],
    ["UpheldBy=, for which systemd 252's enable makes no link and later ones do", ['UpheldBy=a.target']],
  ])('what it cannot tell as systemd would (%s) is undefined', (_, lines) => {
    expect(installLinks('x.service', lines)).toBeUndefined();
  });

  test("an instance's alias is undefined: the read does not look for it", () => {
    expect(installLinks('p@a.service', ['Alias=q@a.service'])).toBeUndefined();
  });
});

describe('what differs', () => {
  const links = { etc: ['a.target.wants/x.service'], run: [], install: ['a.target.wants/x.service'] };

  test('links as its [Install] makes them are no drift; /run links among them neither', () => {
    expect(linkDrift(true, links)).toEqual({ stray: [], missing: [] });
    expect(linkDrift(true, { ...links, run: ['a.target.wants/x.service'] })).toEqual({ stray: [], missing: [] });
  });

  test('a link its [Install] does not make, under /etc or /run, is stray; one it makes not there, missing', () => {
    const drift = linkDrift(true, {
      etc: ['b.target.wants/x.service'],
      run: ['c.target.wants/x.service'],
      install: links.install,
    });
    expect(drift).toEqual({
      stray: ['/etc/systemd/system/b.target.wants/x.service', '/run/systemd/system/c.target.wants/x.service'],
      missing: ['/etc/systemd/system/a.target.wants/x.service'],
    });
    expect(linkWords(drift!, true)).toBe(
      'links its [Install] does not make: /etc/systemd/system/b.target.wants/x.service, ' +
        '/run/systemd/system/c.target.wants/x.service; ' +
        'links its [Install] makes are missing: /etc/systemd/system/a.target.wants/x.service',
    );
  });

  test('every link of a unit declared disabled is stray', () => {
    expect(linkDrift(false, links)).toEqual({ stray: ['/etc/systemd/system/a.target.wants/x.service'], missing: [] });
  });

  test('without what its [Install] makes, nothing is judged', () => {
    expect(linkDrift(true, { etc: ['b.target.wants/x.service'], run: [] })).toBeUndefined();
  });
});

describe('the read', () => {
  const E = '/etc/systemd/system';
  const found = [
    `${E}/a.target.wants/x.service\t${E}/x.service`,
    `${E}/y.service\t${E}/x.service`,
    `${E}/x.service\t/dev/null`,
    `/run/systemd/system/a.target.wants/p@1.service\t${E}/p@.service`,
    `${E}/a.target.wants/p@2.service\t${E}/p@.service`,
    `${E}/x.service.d/link.conf\t${E}/x.service`,
  ].map((line) => `L${line}`);
  const install = ['@/etc/x.service', '|WantedBy=a.target', '@/etc/p@.service', '|WantedBy=a.target'];
  const links = readLinks(['x.service', 'p@1.service', 'p@.service'], [...install, ...found].join('\n'));

  test('each link goes to the unit it is named for or whose file it points to; an instance to its template too', () => {
    expect(links('x.service', ['/etc/x.service'], () => true)).toEqual({
      etc: ['a.target.wants/x.service', 'y.service'],
      run: [],
      install: ['a.target.wants/x.service'],
    });
    expect(links('p@1.service', ['/etc/p@.service'], () => true)).toEqual({
      etc: [],
      run: ['a.target.wants/p@1.service'],
      install: ['a.target.wants/p@1.service'],
    });
    expect(links('p@.service', ['/etc/p@.service'], () => true)).toEqual({
      etc: ['a.target.wants/p@2.service'],
      run: ['a.target.wants/p@1.service'],
    });
  });

  test("a drop-in's [Install] counts in its unit's or template's directory, not service.d's; one unread, none", () => {
    const dropIns = ['@/etc/x.service.d/a.conf', '|WantedBy=b.target', '@/etc/service.d/c.conf', '|WantedBy=c.target'];
    const withDropIns = readLinks(['x.service'], [...install, ...dropIns].join('\n'));
    const files = ['/etc/x.service', '/etc/x.service.d/a.conf', '/etc/service.d/c.conf'];
    expect(withDropIns('x.service', files, () => true).install).toEqual([
      'a.target.wants/x.service',
      'b.target.wants/x.service',
    ]);
    expect(withDropIns('x.service', files, (path) => path !== '/etc/x.service.d/a.conf').install).toBeUndefined();
  });

  // Regression: a -name and two -lname tests a unit took find 650 ms for 200 units (measured, systemd 252 host).
  test('find and awk print every link with its target, no line of a target apart, then [Install] sections', () => {
    const dir = execFileSync('mktemp', ['-d']).toString().trim();
    const unit =
      '[Unit]\\nWantedBy=no.target\\n[Install]\\nWantedBy=a.target\\n[X]\\nWantedBy=x.target\\n[Install ]\\nAlias=b\\n';
    const tree = [
      `mkdir -p ${dir}/etc/a.target.wants ${dir}/run`,
      `ln -s /etc/systemd/system/p@.service ${dir}/etc/a.target.wants/p@2.service`,
      `ln -s "$(printf '/x\\n@@cdktf-homelab:now\\n')" ${dir}/run/y.service`,
      `printf '${unit}' > ${dir}/x.service`,
      `printf '[Service]\\n' > ${dir}/y.service`,
    ].join(' && ');
    execFileSync('sh', ['-c', tree]);
    const roots = LINKS_COMMAND.replace('/etc/systemd/system', `${dir}/etc`).replace(
      '/run/systemd/system',
      `${dir}/run`,
    );
    const command = `set -- ${dir}/x.service ${dir}/y.service ${dir}/missing.service; ${roots}`;
    const out = execFileSync('sh', ['-c', command]).toString();
    execFileSync('rm', ['-rf', dir]);
    expect(out.split('\n').sort()).toEqual(
      [
        '',
        `@${dir}/x.service`,
        '|WantedBy=a.target',
        `L${dir}/etc/a.target.wants/p@2.service\t/etc/systemd/system/p@.service`,
        `L${dir}/run/y.service\t/x`,
        'L@@cdktf-homelab:now',
      ].sort(),
    );
  });
});
