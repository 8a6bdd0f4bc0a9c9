/**
 * The read of a tokenFile on every request, on real files: only a regular file under the cap is read, opened
 * without blocking, so a FIFO (which held the event loop past timeoutSeconds, an audit) or a device fails at once.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_CREDENTIAL_FILE_BYTES, readCredentialFile } from '../../../../src/kube/connection';
import { single } from './kubeconfig-fixtures';

const BUNDLE = path.join(__dirname, '../../../../build/handlers/kube.js');
const CLUSTER = { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true };

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-credential-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a token file is read whole, through a link as a projected service account token is', () => {
  fs.mkdirSync(path.join(dir, '..data'));
  fs.writeFileSync(path.join(dir, '..data', 'token'), 'T\n', { mode: 0o600 });
  fs.symlinkSync('..data/token', path.join(dir, 'token'));
  expect(readCredentialFile(path.join(dir, 'token'))?.toString()).toBe('T\n');
});

test('a file that is not there reads as absent', () =>
  expect(readCredentialFile(path.join(dir, 'none'))).toBeUndefined());

test('a FIFO is refused at once, naming it, whoever could write to it', () => {
  const fifo = path.join(dir, 'token');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  expect(() => readCredentialFile(fifo)).toThrow(
    `Kubernetes credential file unreadable: ${fifo} is not a regular file`,
  );
});

test('a device is refused, never read to its end', () =>
  expect(() => readCredentialFile('/dev/zero')).toThrow('/dev/zero is not a regular file'));

test('a file past the cap is refused, naming the cap', () => {
  const big = path.join(dir, 'token');
  fs.writeFileSync(big, Buffer.alloc(MAX_CREDENTIAL_FILE_BYTES + 1, 'x'));
  expect(() => readCredentialFile(big)).toThrow(`${big} is larger than ${MAX_CREDENTIAL_FILE_BYTES} bytes`);
});

// The bundled handler in a child process: on a blocking read it would hang, not fail, and the kill below ends it.
test('a handler whose tokenFile is a FIFO fails within its timeoutSeconds, naming the file', () => {
  const fifo = path.join(dir, 'token');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const kubeconfig = path.join(dir, 'config');
  fs.writeFileSync(kubeconfig, single(CLUSTER, { tokenFile: fifo }), { mode: 0o600 });
  const spec = { namespace: 'jr2', key: 'site', url: 'https://git.example/me/site.git', identity: 'git.example/me' };
  const input = JSON.stringify({
    '.target': JSON.stringify({ name: 'home', kubeconfig, timeoutSeconds: 2 }),
    r1: JSON.stringify({ kind: 'kube-repo', spec }),
  });
  const run = spawnSync(process.execPath, [BUNDLE, 'batch', 'read'], { input, encoding: 'utf8', timeout: 10_000 });
  expect(run.signal).toBeNull();
  expect(run.status).toBe(1);
  expect(run.stderr).toContain(`${fifo} is not a regular file`);
});
