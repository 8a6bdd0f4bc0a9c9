import { headerProblems } from '../../../../src/linux/unit-headers';

const RULE =
  'must be a section header alone, "[Name]" with nothing after its "]" ' +
  '(systemd refuses the file: Invalid section header)';

describe('headerProblems: section headers as systemd 252 holds them', () => {
  test.each([
    ['[Install] # c', 2],
    ['[Install]x', 2],
    ['  [Service] ;', 2],
  ])('%j, which systemd refuses the file over, is named with its line', (header, line) => {
    expect(headerProblems(`[Unit]\n${header}\nWantedBy=multi-user.target\n`)).toEqual([
      `line ${line} ${RULE}, got ${JSON.stringify(header.trim())}`,
    ]);
  });

  test.each([
    ['plain headers', '[Unit]\nDescription=x\n\n[Install]\nWantedBy=multi-user.target\n'],
    ['whitespace around a header', '  [Unit]  \r\nDescription=x\r\n'],
    ['a header inside a continuation is part of its line', 'Description=a \\\n[Install] x\n'],
    ['a commented header', '# [Install] x\n; [Unit\n'],
    ['a byte order mark', '\uFEFF[Unit]\n'],
  ])('%s pass', (_, text) => {
    expect(headerProblems(text)).toEqual([]);
  });

  test('every broken header is named, numbered by the physical line it starts on', () => {
    expect(headerProblems('# c\nA=b \\\nc\n[Unit] a\n[Install]b\n')).toEqual([
      `line 4 ${RULE}, got "[Unit] a"`,
      `line 5 ${RULE}, got "[Install]b"`,
    ]);
  });
});
