/**
 * The process edge of a kubeconfig's exec plugin (exec-credential.ts is its pure side): the plugin runs with no
 * stdin (a handler's stdin is Terraform's query) for a bounded time and a bounded answer, so a plugin that waits
 * for a browser or floods its stdout cannot hold an apply or the handler's memory. Its stderr is shown line by
 * line, printable and capped: it lands in Terraform's output, and a terminal obeys the escapes in it.
 */
import { spawn } from 'node:child_process';
import { MAX_TEXT_BYTES, printableLine } from '../core/printable';
import type { ExecRunner } from './exec-credential';

/** How long a plugin may take: an SSO login that waits for a browser would otherwise hang the apply. */
export const EXEC_TIMEOUT_MS = 60_000;

/** The most a plugin may print: an ExecCredential is a few kB (a client certificate and key included). */
export const EXEC_MAX_STDOUT_BYTES = 1024 * 1024;

/** The most lines of a plugin's stderr shown; the rest are counted. */
export const EXEC_STDERR_LINES = 40;

/** What shows a plugin's stderr: each line as it comes, then `end` once the plugin is gone. */
interface LineRelay {
  readonly push: (text: string) => void;
  readonly end: () => void;
}

/** Shows `text` line by line through `show`, each printable, at most EXEC_STDERR_LINES of them. */
const stderrRelay = (show: (line: string) => void): LineRelay => {
  let pending = '';
  let shown = 0;
  let hidden = 0;
  const emit = (line: string) => {
    if (line.trim() === '') return;
    if (shown < EXEC_STDERR_LINES) {
      shown += 1;
      show(printableLine(line));
    } else hidden += 1;
  };
  return {
    push: (text) => {
      const lines = (pending + text).split(/\r?\n/);
      pending = lines.pop() ?? '';
      lines.forEach(emit);
      // A line past the cap is shown cut now, not held: printableLine cuts it there anyway.
      if (pending.length > MAX_TEXT_BYTES) {
        emit(pending);
        pending = '';
      }
    },
    end: () => {
      emit(pending);
      pending = '';
      if (hidden > 0) show(`… (${hidden} more line${hidden === 1 ? '' : 's'} of its stderr not shown)`);
    },
  };
};

const toStderr = (line: string) => void process.stderr.write(`${line}\n`);

/**
 * Runs a plugin and settles once: with its exit status and stdout, or with an error (not installed, too slow,
 * too much output), the plugin killed. Its own timer, not spawn's `timeout`, which is left running when the
 * plugin cannot start and kept the process alive for a minute after a missing plugin was reported. Its stderr
 * goes to `show`, line by line (stderrRelay).
 */
export const execRunner =
  (timeoutMs: number, maxStdoutBytes: number, show: (line: string) => void = toStderr): ExecRunner =>
  (command, args, env) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const stderr = stderrRelay(show);
      child.stderr.setEncoding('utf8').on('data', stderr.push);
      const chunks: Buffer[] = [];
      let size = 0;
      const fail = (error: Error) => {
        clearTimeout(timer);
        child.stdout.destroy();
        child.kill('SIGKILL');
        reject(error);
      };
      const timer = setTimeout(() => fail(new Error(`did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxStdoutBytes) fail(new Error(`printed more than ${maxStdoutBytes} bytes`));
        else chunks.push(chunk);
      });
      child.once('error', fail);
      child.once('close', (exitCode) => {
        clearTimeout(timer);
        stderr.end();
        resolve({ exitCode, stdout: Buffer.concat(chunks).toString('utf8') });
      });
    });

/** The runner handlers use. */
export const spawnExecRunner = execRunner(EXEC_TIMEOUT_MS, EXEC_MAX_STDOUT_BYTES);
