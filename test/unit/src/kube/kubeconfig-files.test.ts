/**
 * The kubeconfig and the files it names, read by the bundled kube handler: a kubeconfig given as a pipe
 * (`<(sops -d config)`) is still read, while a CA file that is a FIFO whose writer never writes fails within
 * CREDENTIAL_WAIT_MS naming the file (it held the handler past its timeoutSeconds before: killed at 15 s).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CREDENTIAL_WAIT_MS } from '../../../../src/kube/connection';
import { single } from './kubeconfig-fixtures';

const BUNDLE = path.join(__dirname, '../../../../build/handlers/kube.js');
const SPEC = { namespace: 'jr2', key: 'site', url: 'https://git.example/me/site.git', identity: 'git.example/me' };

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-files-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The handler's batch read of one Repo over `kubeconfig`, timeoutSeconds 2; killed after 30 s. */
const readWith = (kubeconfig: string) => {
  const input = JSON.stringify({
    '.target': JSON.stringify({ name: 'home', kubeconfig, timeoutSeconds: 2 }),
    r1: JSON.stringify({ kind: 'kube-repo', spec: SPEC }),
  });
  const started = Date.now();
  const run = spawnSync(process.execPath, [BUNDLE, 'batch', 'read'], { input, encoding: 'utf8', timeout: 30_000 });
  return { ...run, ms: Date.now() - started };
};

/** A FIFO at `name` in the test's folder, and a writer that opens it, sends `text` and stays `seconds`. */
const pipeOf = (name: string, text: string, seconds: number) => {
  const file = path.join(dir, name);
  expect(spawnSync('mkfifo', ['-m', '600', file]).status).toBe(0);
  const writer = spawn('sh', ['-c', 'exec >"$1"; printf %s "$2"; exec sleep "$3"', 'sh', file, text, String(seconds)]);
  return { file, writer };
};

test('a kubeconfig given as a pipe is read: the read goes on to the server', () => {
  const { file, writer } = pipeOf('config', single({ server: 'https://127.0.0.1:1' }, { token: 't' }), 0);
  try {
    const run = readWith(file);
    expect(run.stderr).not.toContain('credential file unreadable');
    expect(run.stderr).toContain('127.0.0.1:1');
  } finally {
    writer.kill('SIGKILL');
  }
});

test('a CA file that is a FIFO never written fails within the wait, naming it', () => {
  const { file: ca, writer } = pipeOf('ca.pem', '', 60);
  try {
    const kubeconfig = path.join(dir, 'config');
    fs.writeFileSync(
      kubeconfig,
      single({ server: 'https://127.0.0.1:1', 'certificate-authority': ca }, { token: 't' }),
      {
        mode: 0o600,
      },
    );
    const run = readWith(kubeconfig);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${ca} gave no end of file within ${CREDENTIAL_WAIT_MS / 1000} s`);
    expect(run.ms).toBeLessThan(CREDENTIAL_WAIT_MS + 5000);
  } finally {
    writer.kill('SIGKILL');
  }
}, 40_000);
