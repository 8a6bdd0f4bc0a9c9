/**
 * How the Ctrl-C cleanup (run-shared.ts) tells a run's processes from the machine's others: by the marker in the
 * environment (exactly `name=value`, not a prefix of it) or by the session, read from a stat line whose command may
 * hold spaces and parentheses. A wrong match would leave a run's process behind or kill another run's.
 */
import { spawn } from 'node:child_process';
import { belongsToRun, endProcesses, environHolds, runProcesses, sessionOf } from './run-processes';

const STAT = '4242 (node (a) b) S 4200 4240 4240 0 -1 4194560 1 0 0 0';

test('the marker matches a whole environment entry only', () => {
  const environ = 'PATH=/bin\0CDKTF_HOMELAB_RUN_DIR=/tmp/run-1\0HOME=/root\0';
  expect(environHolds(environ, 'CDKTF_HOMELAB_RUN_DIR', '/tmp/run-1')).toBe(true);
  expect(environHolds(environ, 'CDKTF_HOMELAB_RUN_DIR', '/tmp/run')).toBe(false);
  expect(environHolds('X_CDKTF_HOMELAB_RUN_DIR=/tmp/run-1\0', 'CDKTF_HOMELAB_RUN_DIR', '/tmp/run-1')).toBe(false);
});

test('the session is read after the command, whatever it holds', () => {
  expect(sessionOf(STAT)).toBe(4240);
  const facts = { pid: 4242, environ: '', stat: STAT, cmdline: 'node\0a' };
  expect(belongsToRun(facts, { name: 'M', value: 'v', session: 4240 })).toBe(true);
  expect(belongsToRun(facts, { name: 'M', value: 'v', session: 4241 })).toBe(false);
  expect(belongsToRun(facts, { name: 'M', value: 'v' })).toBe(false);
});

test('a marked process that ignores SIGTERM is found, then ended by SIGKILL', async () => {
  const marker = { name: 'CDKTF_HOMELAB_TEST_MARK', value: `${process.pid}-${Date.now()}` };
  const child = spawn('bash', ['-c', 'trap "" TERM; while :; do sleep 0.1; done'], {
    env: { ...process.env, [marker.name]: marker.value },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(runProcesses(marker).map((p) => p.pid)).toContain(child.pid);
  expect(endProcesses(() => runProcesses(marker), 500, 5000)).toEqual([]);
  expect(await exited).toBe('SIGKILL');
});
