import { parseUpid, taskPath } from '../../../../src/pve/upid';

const UPID = 'UPID:n2:0001A2B3:0ABCDEF0:66E4A1B2:srvreload:networking:root@pam!homelab:';

describe('parseUpid', () => {
  test('reads node, type, id, user and start time as PVE encodes them', () => {
    expect(parseUpid(UPID)).toEqual({
      node: 'n2',
      type: 'srvreload',
      id: 'networking',
      user: 'root@pam!homelab',
      starttime: 0x66e4a1b2,
    });
  });

  test.each([
    ['no trailing colon', UPID.slice(0, -1)],
    ['a short pid', UPID.replace('0001A2B3', 'A2B3')],
    ['a slash in a field', UPID.replace('networking', 'net/working')],
    ['whitespace in a field', UPID.replace('networking', 'net working')],
    ['a bad node name', UPID.replace(':n2:', ':-n2:')],
    ['not a UPID at all', 'hello'],
  ])('refuses %s, as PVE answers "unable to parse worker upid"', (_, upid) => {
    expect(parseUpid(upid)).toBeUndefined();
  });

  test('takes a 9-digit pstart (over 497 days of uptime)', () => {
    expect(parseUpid(UPID.replace('0ABCDEF0', '10ABCDEF0'))?.node).toBe('n2');
  });
});

describe('taskPath', () => {
  test.each<[string, string, 'status' | 'log', string]>([
    // Raw: nothing relies on the server decoding :, @ or ! (the seed's reason).
    ['a token-started task', UPID, 'status', `nodes/n2/tasks/${UPID}/status`],
    ['the log', UPID, 'log', `nodes/n2/tasks/${UPID}/log`],
    // A user name may hold # ? %; raw, they would end the path or start a query.
    [
      'a user name with # and ?',
      UPID.replace('root@pam!homelab', 'a#b?c%d@pve'),
      'status',
      'nodes/n2/tasks/UPID:n2:0001A2B3:0ABCDEF0:66E4A1B2:srvreload:networking:a%23b%3Fc%25d@pve:/status',
    ],
  ])('builds the path for %s', (_, upid, leaf, path) => {
    expect(taskPath(upid, leaf)).toBe(path);
  });

  test('takes the node from the UPID', () => {
    expect(taskPath(UPID.replace(':n2:', ':n4:'), 'status')).toMatch(/^nodes\/n4\/tasks\//);
  });

  test('refuses a UPID that could leave the task path', () => {
    expect(() => taskPath('UPID:n2:../../cluster/status', 'status')).toThrow(/not a PVE task id/);
  });
});
