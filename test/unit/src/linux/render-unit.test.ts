import * as z from 'zod/mini';
import { renderUnit, type UnitSection, unitSectionProblems, unitText } from '../../../../src/linux/render-unit';
import { unitSpec } from '../../../../src/linux/systemd-unit';

const CONTROL = 'must not contain a newline, carriage return, NUL or other control character';
const CONTINUED = 'must not end in a backslash (systemd would join the next line to it)';
const DIRECTIVE = 'must be a directive name (a letter, then letters, digits, _ and -)';
const SECTION = 'must be letters, digits, _ and - (Service, X-Mine)';

const unit = (name: string, key: string, value: string): UnitSection[] => [{ name, lines: [[key, value]] }];

// Issue 16 item 1: a newline in a value put a second [Service] with an ExecStartPre into the file.
describe('unitSectionProblems, the rules that keep each name, key and value on its own line', () => {
  test.each<[string, UnitSection[], string]>([
    [
      'a newline in a value',
      unit('Unit', 'Description', 'x\n[Service]'),
      `[Unit] Description ${CONTROL}, got "x\\n[Service]"`,
    ],
    [
      'a carriage return in a value',
      unit('Unit', 'Description', 'x\rExecStart=/bin/id'),
      `[Unit] Description ${CONTROL}`,
    ],
    ['a NUL in a value', unit('Unit', 'Description', 'x\u0000y'), `[Unit] Description ${CONTROL}, got "x\\u0000y"`],
    ['another control character in a value', unit('Unit', 'Description', 'x\u001by'), `[Unit] Description ${CONTROL}`],
    [
      'a value ending in a backslash',
      unit('Service', 'Environment', 'A=1\\'),
      `[Service] Environment ${CONTINUED}, got "A=1\\\\"`,
    ],
    [
      'a value ending in three backslashes',
      unit('Service', 'Environment', 'A\\\\\\'),
      `[Service] Environment ${CONTINUED}`,
    ],
    ['a value of one backslash', unit('Service', 'Environment', '\\'), `[Service] Environment ${CONTINUED}`],
    ['a newline in a key', unit('Service', 'User\nExecStart', 'x'), `[Service] key ${CONTROL}, got "User\\nExecStart"`],
    ['a carriage return in a key', unit('Service', 'User\r', 'x'), `[Service] key ${CONTROL}`],
    ['a NUL in a key', unit('Service', 'User\u0000', 'x'), `[Service] key ${CONTROL}`],
    [
      'an = in a key',
      unit('Service', 'ExecStartPre=/bin/id #', 'x'),
      `[Service] key ${DIRECTIVE}, got "ExecStartPre=/bin/id #"`,
    ],
    ['a key starting a comment', unit('Service', '#User', 'x'), `[Service] key ${DIRECTIVE}`],
    ['a key starting a header', unit('Service', '[Unit]', 'x'), `[Service] key ${DIRECTIVE}`],
    ['a space in a key', unit('Service', 'Exec Start', 'x'), `[Service] key ${DIRECTIVE}`],
    ['an empty key', unit('Service', '', 'x'), `[Service] key ${DIRECTIVE}, got ""`],
    [
      'a newline in a section name',
      unit('Unit]\n[Service', 'A', 'x'),
      `section name ${CONTROL}, got "Unit]\\n[Service"`,
    ],
    ['a carriage return in a section name', unit('Unit\r', 'A', 'x'), `section name ${CONTROL}`],
    ['a NUL in a section name', unit('Unit\u0000', 'A', 'x'), `section name ${CONTROL}`],
    ['a bracket in a section name', unit('Unit] [Service', 'A', 'x'), `section name ${SECTION}, got "Unit] [Service"`],
    ['an empty section name', unit('', 'A', 'x'), `section name ${SECTION}, got ""`],
  ])('refuses %s', (_, sections, problem) => {
    const problems = unitSectionProblems(sections);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });

  test.each<[string, UnitSection[]]>([
    ['plain directives', unit('Service', 'ExecStart', '/bin/sh -c "echo $$HOME; exit 0"')],
    ['a tab in a value', unit('Service', 'Environment', 'A=1\tB=2')],
    ['a backslash inside a value', unit('Service', 'ExecStart', '/bin/printf a\\nb')],
    ['a value ending in an escaped backslash', unit('Service', 'Environment', 'A=1\\\\')],
    ['an empty value (a list reset)', unit('Service', 'ExecStart', '')],
    ['an X- section and key', unit('X-Mine', 'X-Owner_Team', 'ops')],
  ])('accepts %s', (_, sections) => {
    expect(unitSectionProblems(sections)).toEqual([]);
  });

  test('every problem is reported, in file order', () => {
    const sections: UnitSection[] = [
      { name: 'Unit', lines: [['Description', 'a\nb']] },
      {
        name: 'Service',
        lines: [
          ['Exec=Start', 'x'],
          ['User', 'root\\'],
        ],
      },
    ];
    expect(unitSectionProblems(sections).map((problem) => problem.split(' must')[0])).toEqual([
      '[Unit] Description',
      '[Service] key',
      '[Service] User',
    ]);
  });

  test('a part not known yet is judged by what `known` makes of it; undefined skips the string', () => {
    const marker = '<unknown>';
    const known = (text: string) => (text === marker ? undefined : text.replace(marker, 'x'));
    expect(unitSectionProblems(unit('Service', 'Environment', marker), known)).toEqual([]);
    expect(unitSectionProblems(unit('Service', 'Environment', `A\\${marker}`), known)).toEqual([]);
    expect(unitSectionProblems(unit('Service', 'Environment', `${marker}\n`), known)).toHaveLength(1);
  });
});

describe('renderUnit', () => {
  // Issue 29: the sections went to text, were looked up again by that text in a module-global map, then rendered again.
  test('gives the sections themselves, as a copy, whose text is what unitText renders', () => {
    const lines: Array<[string, string]> = [['Description', 'copied']];
    const content = renderUnit([{ name: 'Unit', lines }]);
    lines.push(['After', 'later']);
    expect(content).toEqual([{ name: 'Unit', lines: [['Description', 'copied']] }]);
    expect(`${content}`).toBe('[Unit]\nDescription=copied\n');
    expect(Object.keys(content)).toEqual(['0']);
  });
});

describe("a unit spec's content at the handler boundary", () => {
  const sections: UnitSection[] = [{ name: 'Service', lines: [['Environment', 'LEVEL=1']] }];
  const spec = (content: unknown) => ({
    name: 'a.service',
    directory: '/etc/systemd/system',
    content,
    // No [Install] in this content: enabled: true would be refused (unit-enable.ts).
    enabled: false,
    started: true,
    restartOn: '0'.repeat(64),
    startTimeoutSeconds: 90,
    unmask: false,
  });

  test('text passes as it is, sections become the text unitText renders', () => {
    expect(z.parse(unitSpec, spec('any text\n')).content).toBe('any text\n');
    expect(z.parse(unitSpec, spec(sections)).content).toBe(unitText(sections));
  });

  test('sections breaking rules fail with every problem', () => {
    const bad = [...unit('Unit', 'Description', 'x\n[Service]'), ...unit('Service', 'User', 'nobody\\')];
    const result = z.safeParse(unitSpec, spec([...sections, ...bad]));
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      `[Unit] Description ${CONTROL}, got "x\\n[Service]"`,
      `[Service] User ${CONTINUED}, got "nobody\\\\"`,
    ]);
  });
});
