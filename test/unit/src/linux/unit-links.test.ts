import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { LINKS_COMMAND } from '../../../../src/linux/links-command';
import { linkDrift, readLinks } from '../../../../src/linux/unit-links';
import { linkWords } from '../../../../src/linux/unit-link-judge';

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

  test('links the read cannot compare are drift for a unit enabled, in words that say why and what ends it', () => {
    const unknown = { etc: ['b.target.wants/x.service'], run: [], unknown: 'WantedBy="a.target": a quote' };
    const drift = linkDrift(true, unknown);
    expect(drift).toEqual({ stray: [], missing: [], unknown: 'WantedBy="a.target": a quote' });
    expect(linkWords(drift!, true)).toBe(
      'cannot compare links: WantedBy="a.target": a quote; ' +
        'the apply re-enables it, an [Install] without it reads in sync',
    );
    expect(linkDrift(false, unknown)).toEqual({ stray: ['/etc/systemd/system/b.target.wants/x.service'], missing: [] });
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
    // A template without DefaultInstance= and Alias=: its enable makes no link (measured, systemd 252).
    expect(links('p@.service', ['/etc/p@.service'], () => true)).toEqual({
      etc: ['a.target.wants/p@2.service'],
      run: ['a.target.wants/p@1.service'],
      install: [],
      aliasesOnly: true,
    });
  });

  test("an alias beside the units to a template's file is its instance's of that instance, not the template's", () => {
    const text = [`${E}/q@1.service`, `${E}/q@2.service`, `${E}/r@1.service`]
      .map((link) => `L${link}\t${E}/p@.service`)
      .join('\n');
    const aliased = readLinks(
      ['p@1.service', 'p@.service'],
      ['@/etc/p@.service', '|Alias=q@%i.service', text].join('\n'),
    );
    // Regression: r@1.service, an alias its [Install] does not make, was left out, and the read said in sync.
    const read = aliased('p@1.service', ['/etc/p@.service'], () => true);
    expect(read).toMatchObject({ etc: ['q@1.service'], run: [], install: ['q@1.service'] });
    const drift = linkDrift(true, read);
    expect(drift).toMatchObject({ stray: [], missing: [], unknown: expect.stringContaining(`${E}/r@1.service`) });
    expect(linkWords(drift!, true)).toBe(
      `cannot compare links: ${E}/r@1.service, an alias its [Install] does not make, stays through systemctl ` +
        'disable and reenable (measured); the apply refuses it, removing that alias by hand ends it',
    );
    // Declared disabled, it is left out as before: its disable would leave it too.
    expect(linkDrift(false, read)).toEqual({ stray: [`${E}/q@1.service`], missing: [] });
    expect(aliased('p@.service', ['/etc/p@.service'], () => true).etc).toEqual([
      'q@1.service',
      'q@2.service',
      'r@1.service',
    ]);
  });

  // Regression: a template's DefaultInstance= links were not judged, so one removed by hand while another of its
  // links or an instance's kept list-unit-files at `enabled` or `indirect` read in sync (measured, systemd 252).
  test("a template's links named for its DefaultInstance= are compared, not its other instances'", () => {
    const text = [
      '@/etc/d@.service',
      '|WantedBy=a.target b-%i.target',
      '|DefaultInstance=x',
      ...[`a.target.wants/d@y.service`, `c.target.wants/d@x.service`, `a.target.wants/d@x.service`].map(
        (link) => `L${E}/${link}\t${E}/d@.service`,
      ),
    ];
    const read = readLinks(['d@.service'], text.join('\n'))('d@.service', ['/etc/d@.service'], () => true);
    expect(read).toMatchObject({ install: ['a.target.wants/d@x.service', 'b-x.target.wants/d@x.service'] });
    expect(linkDrift(true, read)).toEqual({
      stray: [`${E}/c.target.wants/d@x.service`],
      missing: [`${E}/b-x.target.wants/d@x.service`],
    });
    // Declared disabled, every link named for its default instance is drift, not its other instances'.
    expect(linkDrift(false, read)).toEqual({
      stray: [`${E}/a.target.wants/d@x.service`, `${E}/c.target.wants/d@x.service`],
      missing: [],
    });
    const without = readLinks(['d@.service'], text.filter((line) => !line.includes('Default')).join('\n'));
    // Without DefaultInstance=, only the aliases its enable makes are compared: none here (unit-alias.test.ts).
    expect(
      linkDrift(
        true,
        without('d@.service', ['/etc/d@.service'], () => true),
      ),
    ).toEqual({ stray: [], missing: [] });
    // Regression: with Alias= its links read in sync. Its enable links the alias as the template's, specifiers the
    // instance's (measured, systemd 252); another instance's alias is not compared.
    const aliased = readLinks(
      ['d@.service'],
      [...text, '|Alias=e@.service f@%i.service', `L${E}/e@y.service\t${E}/d@.service`].join('\n'),
    );
    const withAlias = aliased('d@.service', ['/etc/d@.service'], () => true);
    expect(withAlias.install).toEqual([
      'a.target.wants/d@x.service',
      'b-x.target.wants/d@x.service',
      'e@.service',
      'f@x.service',
    ]);
    expect(linkDrift(true, withAlias)?.missing).toEqual([
      `${E}/b-x.target.wants/d@x.service`,
      `${E}/e@.service`,
      `${E}/f@x.service`,
    ]);
  });

  // Regression: a DefaultInstance= with a specifier was not judged, so its link removed by hand read in sync.
  test("a template's DefaultInstance= resolves its specifiers as the template's and the host's", () => {
    const text = ['@/etc/d@.service', '|WantedBy=a.target', '|DefaultInstance=%H-%p%i', 'F.', 'FHhost.lan', 'F:'];
    const read = readLinks(['d@.service'], text.join('\n'))('d@.service', ['/etc/d@.service'], () => true);
    expect(read).toMatchObject({
      defaultInstance: 'd@host.lan-d.service',
      install: ['a.target.wants/d@host.lan-d.service'],
    });
    // One systemd's enable refuses (a `%` is no name's) or the read cannot resolve keeps list-unit-files' word.
    for (const word of ['%%', '%I', '%y'])
      expect(
        readLinks(['d@.service'], [...text, `|DefaultInstance=${word}`].join('\n'))(
          'd@.service',
          ['/etc/d@.service'],
          () => true,
        ).defaultInstance,
      ).toBeUndefined();
  });

  test("the host's facts answer its [Install] specifiers; an [Install] it cannot read says why", () => {
    const text = ['@/etc/x.service', '|WantedBy=%H.target', '|UpheldBy=u.target', 'F.', 'FHhost.lan', 'F:'];
    const read = readLinks(['x.service'], [...text, 'FSVersion=254.5-1'].join('\n'));
    expect(read('x.service', ['/etc/x.service'], () => true).install).toEqual([
      'host.lan.target.wants/x.service',
      'u.target.upholds/x.service',
    ]);
    const old = readLinks(['x.service'], [...text, 'FSVersion=252.39-1~deb12u2'].join('\n'));
    expect(old('x.service', ['/etc/x.service'], () => true).install).toEqual(['host.lan.target.wants/x.service']);
    expect(readLinks(['x.service'], text.join('\n'))('x.service', ['/etc/x.service'], () => true)).toEqual({
      etc: [],
      run: [],
      unknown: "UpheldBy= makes links from systemd 254 on, and the host's systemd version was not read",
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

  test("awk prints the host's facts only when an [Install] line names a specifier, the manager's for UpheldBy=", () => {
    const dir = execFileSync('mktemp', ['-d']).toString().trim();
    const write = (name: string, install: string) =>
      execFileSync('sh', ['-c', `printf '[Install]\\n%s\\n' '${install}' > ${dir}/${name}`]);
    write('plain.service', 'WantedBy=a.target');
    write('spec.service', 'WantedBy=%H.target');
    write('up.service', 'UpheldBy=a.target');
    const run = (name: string) => {
      const command = LINKS_COMMAND.replace(/\/(etc|run)\/systemd\/system/g, `${dir}/none`);
      return execFileSync('sh', ['-c', `set -- ${dir}/${name}; ${command}`])
        .toString()
        .split('\n');
    };
    const [plain, spec, up] = [run('plain.service'), run('spec.service'), run('up.service')];
    execFileSync('rm', ['-rf', dir]);
    expect(plain.filter((line) => line.startsWith('F'))).toEqual([]);
    const hostname = readFileSync('/proc/sys/kernel/hostname', 'utf8').trim();
    const release = readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim();
    expect(spec).toEqual(expect.arrayContaining(['F.', `FH${hostname}`, `Fv${release}`]));
    expect(spec.filter((line) => line.startsWith('FO')).length).toBeGreaterThan(0);
    expect(spec).not.toContain('F:');
    expect(up).toContain('F:');
    expect(up).not.toContain('F.');
  });
});
