import { COMMAND_TIMEOUT, commandBudgetMs, parseSshTarget } from '../../../../src/linux/target';

const target = { host: '10.0.0.2', port: 22, user: 'root', hostKey: `SHA256:${'a'.repeat(43)}` };

describe('the SSH target a handler receives', () => {
  test('each command gets 30 s when commandTimeoutSeconds is unset', () => {
    expect(COMMAND_TIMEOUT.default).toBe(30);
    expect(commandBudgetMs(parseSshTarget(target))).toBe(30_000);
  });

  test('each command gets commandTimeoutSeconds when set', () => {
    expect(commandBudgetMs(parseSshTarget({ ...target, commandTimeoutSeconds: 5 }))).toBe(5000);
  });

  test.each([0, 1.5, 3601, '30'])('a tampered commandTimeoutSeconds of %p fails naming the field', (value) => {
    expect(() => parseSshTarget({ ...target, commandTimeoutSeconds: value })).toThrow(/commandTimeoutSeconds/);
  });
});
