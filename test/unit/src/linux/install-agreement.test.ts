/**
 * Whether `enabled` is possible (unit-enable.ts) and which links enable makes (unit-install.ts, through the links
 * read's own awk run here) read [Install] alike, and as systemd 252 does: each text below is what
 * `systemctl enable` linked for it on the test host (measured, systemd 252.39-1~deb12u2, its file t.service with
 * `[Service]` after). Regression: two parsers stood side by side, and for `WantedBy= \` before a blank line, or
 * `X-Foo=\` before a WantedBy=, or CR line ends, one said enable links the unit and the other that it links nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installConfigOf } from '../../../../src/linux/install-config';
import { LINKS_COMMAND } from '../../../../src/linux/links-command';
import { readLinks } from '../../../../src/linux/unit-links';

const SERVICE = '[Service]\nExecStart=/bin/sleep infinity\n';
const MULTI = 'multi-user.target.wants/U';
const GETTY = 'getty.target.wants/U';

/** A case: what it shows, the text before `[Service]`, and the links enable made (U: the unit's name). */
const MEASURED: readonly (readonly [string, string, readonly string[]])[] = [
  ['a continuation after WantedBy=', '[Install]\nWantedBy=\\\n multi-user.target\n', [MULTI]],
  ['X-Foo=\\ swallowing the WantedBy= after it', '[Install]\nX-Foo=\\\nWantedBy=multi-user.target\n', []],
  [
    'a comment inside a continuation',
    '[Install]\nWantedBy=multi-user.target \\\n# comment\n getty.target\n',
    [GETTY, MULTI],
  ],
  ['a comment ending in a backslash', '[Install]\n# comment \\\nWantedBy=multi-user.target\n', [MULTI]],
  ['a header inside a continuation', '[Unit]\nDescription=a \\\n[Install]\nWantedBy=multi-user.target\n', []],
  ['WantedBy= \\ before a blank line', '[Install]\nWantedBy= \\\n\n', []],
  ['a continuation led by a tab', '[Install]\nWantedBy=multi-user.target\\\n\tgetty.target\n', [GETTY, MULTI]],
  ['a key in lower case', '[Install]\nwantedby=multi-user.target\n', []],
  ['a section in lower case', '[install]\nWantedBy=multi-user.target\n', []],
  ['spaces around a key and its value', '[Install]\n  WantedBy =  multi-user.target  \n', [MULTI]],
  ['spaces around a header', '  [Install]  \nWantedBy=multi-user.target\n', [MULTI]],
  ['a tab before =', '[Install]\nWantedBy\t= multi-user.target\n', [MULTI]],
  ['CRLF line ends', '[Install]\r\nWantedBy=multi-user.target\r\n', [MULTI]],
  ['CR line ends', '[Install]\rWantedBy=multi-user.target\r', [MULTI]],
  ['a ; comment', '[Install]\n;WantedBy=multi-user.target\n', []],
  ['a line without =', '[Install]\nWantedBy multi-user.target\n', []],
  [
    'an empty value resetting',
    '[Install]\nWantedBy=multi-user.target\nWantedBy=\nAlias=reset2.service\n',
    ['reset2.service'],
  ],
  ['a byte order mark', '\uFEFF[Install]\nWantedBy=multi-user.target\n', [MULTI]],
];

const units = MEASURED.map((_, index) => `t${index}.service`);

/** What the links read makes of each file: the links read's awk, run here on files of the cases' texts. */
const readByAwk = (): ((unit: string) => readonly string[] | undefined) => {
  const dir = mkdtempSync(join(tmpdir(), 'install-agreement-'));
  try {
    const files = MEASURED.map(([, text], index) => {
      const file = join(dir, units[index] ?? '');
      writeFileSync(file, `${text}${SERVICE}`);
      return file;
    });
    const command = LINKS_COMMAND.replace(/\/(etc|run)\/systemd\/system/g, `${dir}/none`);
    const out = execFileSync('sh', ['-c', `set -- ${files.join(' ')}; ${command}`]).toString();
    const links = readLinks(units, out);
    return (unit) => links(unit, [join(dir, unit)], () => true).install;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

describe('[Install] read alike for enabled and for links, as systemd 252 reads it', () => {
  const byAwk = readByAwk();
  test.each(MEASURED.map((entry, index) => [...entry, units[index] ?? ''] as const))('%s', (_, text, made, unit) => {
    const links = made.map((link) => link.replace('U', unit)).sort();
    expect({ enableable: installConfigOf(`${text}${SERVICE}`), links: byAwk(unit) }).toEqual({
      enableable: links.length > 0,
      links,
    });
  });
});
