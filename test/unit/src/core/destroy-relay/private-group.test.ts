/**
 * Which group may write the data dir the relay lives in (private-group.ts): the user's own (a user private group, as
 * Debian and Fedora make), never one another account shares or a directory service alone knows.
 */
import { isPrivateGroup } from '../../../../../src/core/destroy-relay';

describe('isPrivateGroup', () => {
  const passwd =
    'root:x:0:0:root:/root:/bin/bash\nann:x:1000:1000::/home/ann:/bin/sh\nbob:x:1001:100::/home/bob:/bin/sh\n';
  const group = 'root:x:0:\nusers:x:100:\nann:x:1000:\nops:x:1002:ann,bob\n';

  test("a group named as the user, with no members, whose only primary member is the user: the user's own", () => {
    expect(isPrivateGroup(1000, 'ann', group, passwd)).toBe(true);
    expect(isPrivateGroup(0, 'root', group, passwd)).toBe(true);
  });

  test.each([
    ['a group of another name (users, the primary group of bob)', 100, 'bob', group, passwd],
    ['a group whose members are listed', 1002, 'ann', 'ops:x:1002:ann,bob\n', passwd],
    ['a group another account has as its primary group', 1000, 'ann', group, `${passwd}eve:x:1003:1000::/:/bin/sh\n`],
    ['two groups of one id', 1000, 'ann', `${group}twin:x:1000:\n`, passwd],
    ['a group the local files do not list (a directory service)', 2000, 'ann', group, passwd],
    ['an id that is not a number', 1000, 'ann', 'ann:x:1000x:\n', passwd],
  ])('not private: %s', (_, gid, user, groupText, passwdText) => {
    expect(isPrivateGroup(gid, user, groupText, passwdText)).toBe(false);
  });
});
