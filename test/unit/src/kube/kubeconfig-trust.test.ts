// Unit test of the kubeconfig trust rule over an in-memory file table (issue 16 item 11): a kubeconfig, a file it
// names or an exec command that another user owns or can write, or a directory above one that they could swap it out
// of, is refused naming the path and the fix; a missing KUBECONFIG entry another user could create is refused too.
import { loadKubeconfig } from '../../../../src/kube/kubeconfig';
import { type PathFacts, trustProblem } from '../../../../src/kube/file-trust';
import { ioOf, ME, PEM, single } from './kubeconfig-fixtures';

const file = (mode: number, uid = ME): PathFacts => ({ kind: 'file', uid, mode });
const dir = (mode: number, uid = 0): PathFacts => ({ kind: 'dir', uid, mode });
const V1 = 'client.authentication.k8s.io/v1';
const CONFIG = single({ server: 'https://k' }, { token: 't' });

test.each<[string, PathFacts, boolean, string | undefined]>([
  ['our file 0600', file(0o600), false, undefined],
  ["root's file 0644", file(0o644, 0), false, undefined],
  ['a group-writable file', file(0o620), false, 'is writable by group or others (mode 0620)'],
  ['an other-writable file', file(0o602), false, 'is writable by group or others (mode 0602)'],
  ["another user's file", file(0o600, 1001), false, 'is owned by uid 1001, not by you (uid 1000) or root'],
  ['a sticky shared directory (/tmp)', dir(0o1777), false, undefined],
  [
    'a sticky shared directory, for a file not there yet',
    dir(0o1777),
    true,
    'is writable by group or others (mode 1777)',
  ],
  ['a shared directory without the sticky bit', dir(0o777), false, 'is writable by group or others (mode 0777)'],
  ["another user's directory", dir(0o755, 1001), false, 'is owned by uid 1001, not by you (uid 1000) or root'],
])('%s', (_, facts, create, problem) => expect(trustProblem(facts, ME, create)).toBe(problem));

const load =
  (files: Record<string, string>, facts: Record<string, PathFacts | undefined>, env = {}) =>
  () =>
    loadKubeconfig({}, ioOf(files, { KUBECONFIG: '/home/me/.kube/config', ...env }, facts));

test('a kubeconfig others can write is refused, naming it and chmod go-w', () => {
  expect(load({ '/home/me/.kube/config': CONFIG }, { '/home/me/.kube/config': file(0o666) })).toThrow(
    'Kubeconfig not trusted: kubeconfig /home/me/.kube/config is writable by group or others (mode 0666), so ' +
      'another user could change what it makes this handler run or trust as you; run chmod go-w /home/me/.kube/config',
  );
});

test('a kubeconfig another user owns is refused, naming it and chown', () => {
  const kc = '/home/me/.kube/config';
  const refused = load({ [kc]: CONFIG }, { [kc]: file(0o600, 1001) });
  expect(refused).toThrow(`kubeconfig ${kc} is owned by uid 1001, not by you (uid 1000) or root, so another user`);
  expect(refused).toThrow(`; check it, then chown 1000 ${kc}`);
});

test('a kubeconfig in a directory others can write (not sticky) is refused, naming the directory', () => {
  expect(load({ '/home/me/.kube/config': CONFIG }, { '/home/me': dir(0o777, ME) })).toThrow(
    /kubeconfig \/home\/me\/\.kube\/config is in directory \/home\/me, which is writable .* run chmod go-w \/home\/me$/,
  );
});

test('a kubeconfig of ours in a sticky shared directory is used', () => {
  const io = { '/tmp/kc': CONFIG };
  expect(load(io, { '/tmp': dir(0o1777) }, { KUBECONFIG: '/tmp/kc' })().server).toBe('https://k');
});

test('a missing KUBECONFIG entry in a directory others can write is refused: they could create it', () => {
  const files = { '/home/me/.kube/config': CONFIG };
  expect(load(files, { '/tmp': dir(0o1777) }, { KUBECONFIG: '/tmp/planted:/home/me/.kube/config' })).toThrow(
    /kubeconfig \/tmp\/planted does not exist, and directory \/tmp is writable by group or others \(mode 1777\), so/,
  );
});

test('a certificate-authority file others can write is refused: it decides which server is trusted', () => {
  const files = { '/k': single({ server: 'https://k', 'certificate-authority': 'ca.pem' }, {}), '/ca.pem': PEM('C') };
  expect(() => loadKubeconfig({ kubeconfig: '/k' }, ioOf(files, {}, { '/ca.pem': file(0o646) }))).toThrow(
    /cluster "c" in \/k certificate-authority \/ca\.pem is writable by group or others \(mode 0646\)/,
  );
});

// Audit: a tokenFile was used as the bearer token whoever owned it, where the client key beside it was refused.
test.each<[string, Record<string, PathFacts>, RegExp]>([
  ['another user owns it', { '/tmp/token': file(0o600, 1001) }, /tokenFile \/tmp\/token is owned by uid 1001/],
  ['others can write it', { '/tmp/token': file(0o666) }, /tokenFile \/tmp\/token is writable by group or others/],
  [
    'it is in a directory others can write',
    { '/tmp': dir(0o777) },
    /tokenFile \/tmp\/token is in directory \/tmp, which is writable/,
  ],
])('a tokenFile is refused when %s, naming the user and the file', (_, facts, message) => {
  const files = { '/k': single({ server: 'https://k' }, { tokenFile: '/tmp/token' }), '/tmp/token': 'T' };
  const refused = () => loadKubeconfig({ kubeconfig: '/k' }, ioOf(files, {}, facts));
  expect(refused).toThrow(/^Kubeconfig not trusted: user "u" in \/k tokenFile /);
  expect(refused).toThrow(message);
});

test('a missing tokenFile in a sticky shared directory is refused: another user could create it', () => {
  const files = { '/k': single({ server: 'https://k' }, { tokenFile: '/tmp/token' }) };
  expect(() => loadKubeconfig({ kubeconfig: '/k' }, ioOf(files, {}, { '/tmp': dir(0o1777) }))).toThrow(
    /user "u" in \/k tokenFile \/tmp\/token does not exist, and directory \/tmp is writable by group or others/,
  );
});

test('a tokenFile of ours in a sticky shared directory is used', () => {
  const files = { '/k': single({ server: 'https://k' }, { tokenFile: '/tmp/token' }), '/tmp/token': 'T' };
  const io = ioOf(files, {}, { '/tmp': dir(0o1777) });
  expect(loadKubeconfig({ kubeconfig: '/k' }, io).auth.tokenFile).toBe('/tmp/token');
});

const withExec = (command: string) =>
  single({ server: 'https://k' }, { exec: { apiVersion: V1, command, interactiveMode: 'Never' } });

test('an exec command given as a path that others can write is refused before anything runs', () => {
  const files = { '/k': withExec('./bin/token'), '/bin/token': '#!/bin/sh' };
  expect(() => loadKubeconfig({ kubeconfig: '/k' }, ioOf(files, {}, { '/bin/token': file(0o777, 0) }))).toThrow(
    /exec command of user "u" \/bin\/token is writable by group or others \(mode 0777\)/,
  );
});

test('a bare exec command is checked where PATH finds it', () => {
  const files = { '/k': withExec('kubelogin'), '/opt/bin/kubelogin': '#!/bin/sh' };
  const facts = { '/opt/bin/kubelogin': file(0o755, 1001) };
  expect(() => loadKubeconfig({ kubeconfig: '/k' }, ioOf(files, { PATH: '/usr/bin:/opt/bin' }, facts))).toThrow(
    /exec command of user "u" \(looked up in PATH\) \/opt\/bin\/kubelogin is owned by uid 1001/,
  );
});

test('a PATH directory others can write, searched before the command, is refused: they could plant it there', () => {
  const files = { '/k': withExec('kubelogin'), '/usr/bin/kubelogin': '#!/bin/sh' };
  const facts = { '/usr/bin/kubelogin': file(0o755, 0), '/srv/shared': dir(0o1777) };
  expect(() => loadKubeconfig({ kubeconfig: '/k' }, ioOf(files, { PATH: '/srv/shared:/usr/bin' }, facts))).toThrow(
    /\/srv\/shared\/kubelogin does not exist, and directory \/srv\/shared is writable by group or others/,
  );
  const safe = { PATH: '/usr/bin:/srv/shared' }; // found before the shared directory is searched
  expect(loadKubeconfig({ kubeconfig: '/k' }, ioOf(files, safe, facts)).auth.exec?.command).toBe('kubelogin');
});

test('where there are no uids (Windows) nothing is checked', () => {
  const io = { ...ioOf({ '/k': CONFIG }, {}, { '/k': file(0o666, 1001) }), uid: undefined };
  expect(loadKubeconfig({ kubeconfig: '/k' }, io).server).toBe('https://k');
});
