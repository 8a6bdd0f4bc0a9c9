// The exec plugin's process edge: a plugin too slow or too loud is killed and named, one that cannot start
// leaves no timer behind to hold the handler alive, and its stderr is shown printable, line by line, capped.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execCredentialCache, type ExecPlugin } from '../../../../src/kube/exec-credential';
import { EXEC_STDERR_LINES, execRunner } from '../../../../src/kube/exec-runner';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('execRunner', () => {
  test('answers with the exit status and the whole stdout', async () => {
    const run = execRunner(5_000, 1_000);
    expect(await run('sh', ['-c', 'printf "%s" "$1"; exit 3', 'sh', 'hello'], ENV)).toEqual({
      exitCode: 3,
      stdout: 'hello',
    });
  });

  test('a plugin slower than the bound is killed, and the error says how long it had', async () => {
    const run = execRunner(200, 1_000);
    const started = Date.now();
    await expect(run('sh', ['-c', 'exec sleep 30'], ENV)).rejects.toThrow('did not answer within 0.2 s');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a plugin that prints past the cap is killed, and the error names the cap', async () => {
    const run = execRunner(10_000, 1_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exec-runner-'));
    const pidFile = path.join(dir, 'pid');
    const script = 'echo $$ > "$1"; head -c 5000 /dev/zero; exec sleep 30';
    await expect(run('sh', ['-c', script, 'sh', pidFile], ENV)).rejects.toThrow('printed more than 1000 bytes');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    fs.rmSync(dir, { recursive: true });
    // Killed at once; Node reaps it on its next SIGCHLD, so look until it is gone (at most 2 s).
    for (let waited = 0; alive(pid) && waited < 2_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(alive(pid)).toBe(false);
  });

  test("the plugin's stderr is shown line by line, its control characters escaped, its last line at exit", async () => {
    const shown: string[] = [];
    const run = execRunner(5_000, 1_000, (line) => shown.push(line));
    const script = String.raw`printf 'open \033[31mred\033[0m\n\nsecond\r\nlast' >&2; printf ok`;
    expect(await run('sh', ['-c', script], ENV)).toEqual({ exitCode: 0, stdout: 'ok' });
    expect(shown).toEqual(['open \\x1b[31mred\\x1b[0m', 'second', 'last']);
  });

  test(`at most ${EXEC_STDERR_LINES} lines of its stderr are shown, the rest counted`, async () => {
    const shown: string[] = [];
    const run = execRunner(5_000, 1_000, (line) => shown.push(line));
    const script = `i=0; while [ $i -lt ${EXEC_STDERR_LINES + 5} ]; do i=$((i+1)); echo "line $i" >&2; done`;
    await run('sh', ['-c', script], ENV);
    expect(shown).toHaveLength(EXEC_STDERR_LINES + 1);
    expect(shown[EXEC_STDERR_LINES - 1]).toBe(`line ${EXEC_STDERR_LINES}`);
    expect(shown[EXEC_STDERR_LINES]).toBe('… (5 more lines of its stderr not shown)');
  });

  test('a plugin that cannot start leaves no timer running', async () => {
    const before = timers();
    const run = execRunner(60_000, 1_000);
    await expect(run('/nonexistent/kubectl-oidc', [], ENV)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(timers()).toBe(before);
  });

  test("through the credential cache, a slow plugin's error names the plugin and its user", async () => {
    const get = execCredentialCache(execRunner(200, 1_000), ENV);
    const plugin: ExecPlugin = {
      user: 'me',
      apiVersion: 'client.authentication.k8s.io/v1',
      command: 'sleep',
      args: ['30'],
      env: [],
    };
    await expect(get(plugin)).rejects.toThrow('plugin "sleep" of user "me" could not run: did not answer within 0.2 s');
  });
});
