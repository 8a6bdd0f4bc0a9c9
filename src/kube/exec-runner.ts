/**
 * The process edge of a kubeconfig's exec plugin (exec-credential.ts is its pure side): the plugin runs with no
 * stdin (a handler's stdin is Terraform's query) and its stderr shown, for a bounded time and a bounded answer,
 * so a plugin that waits for a browser or floods its stdout cannot hold an apply or the handler's memory.
 */
import { spawn } from 'node:child_process';
import type { ExecRunner } from './exec-credential';

/** How long a plugin may take: an SSO login that waits for a browser would otherwise hang the apply. */
export const EXEC_TIMEOUT_MS = 60_000;

/** The most a plugin may print: an ExecCredential is a few kB (a client certificate and key included). */
export const EXEC_MAX_STDOUT_BYTES = 1024 * 1024;

/**
 * Runs a plugin and settles once: with its exit status and stdout, or with an error (not installed, too slow,
 * too much output), the plugin killed. Its own timer, not spawn's `timeout`, which is left running when the
 * plugin cannot start and kept the process alive for a minute after a missing plugin was reported.
 */
export const execRunner =
  (timeoutMs: number, maxStdoutBytes: number): ExecRunner =>
  (command, args, env) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
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
        resolve({ exitCode, stdout: Buffer.concat(chunks).toString('utf8') });
      });
    });

/** The runner handlers use. */
export const spawnExecRunner = execRunner(EXEC_TIMEOUT_MS, EXEC_MAX_STDOUT_BYTES);
