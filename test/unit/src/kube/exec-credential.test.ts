// ExecCredential plugins: reading their answer without echoing it, the per-process cache, a real plugin script, and
// a tokenFile read on every use so a rotated token is picked up.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { currentCredential, nodeKubeconfigIo } from '../../../../src/kube/connection';
import { spawnExecRunner } from '../../../../src/kube/exec-runner';
import {
  execCredentialCache,
  execEnvironment,
  parseExecCredential,
  type ExecPlugin,
  type ExecRunner,
} from '../../../../src/kube/exec-credential';

const V1 = 'client.authentication.k8s.io/v1';
const SECRET = 'sekret-exec-token-42';
const plugin = (over: Partial<ExecPlugin> = {}): ExecPlugin => ({
  user: 'me',
  apiVersion: V1,
  command: 'get-token',
  args: [],
  env: [],
  ...over,
});
const credential = (status: object, apiVersion = V1) => JSON.stringify({ apiVersion, kind: 'ExecCredential', status });

describe('reading an ExecCredential', () => {
  test('a token with its expiry, or a certificate and key', () => {
    expect(
      parseExecCredential(plugin(), credential({ token: SECRET, expirationTimestamp: '2030-01-02T03:04:05Z' })),
    ).toEqual({
      token: SECRET,
      expiresAt: Date.parse('2030-01-02T03:04:05Z'),
    });
    const pair = parseExecCredential(plugin(), credential({ clientCertificateData: 'CERT', clientKeyData: 'KEY' }));
    expect(pair.clientCert?.certPem.toString()).toBe('CERT');
    expect(pair.clientCert?.keyPem.toString()).toBe('KEY');
  });

  test.each([
    [`token=${SECRET}`, 'printed something that is not an ExecCredential JSON object'],
    [
      credential({ token: SECRET }, 'client.authentication.k8s.io/v1beta1'),
      'answered client.authentication.k8s.io/v1beta1',
    ],
    [JSON.stringify({ apiVersion: V1, kind: 'ExecCredential' }), 'returned no status'],
    [credential({}), 'returned neither a token nor a client certificate and key'],
    [credential({ clientKeyData: SECRET }), 'returned only one of the client certificate and key'],
    [
      credential({ token: SECRET, expirationTimestamp: 'soon' }),
      'returned an expirationTimestamp that is not an RFC 3339 time',
    ],
  ])('refuses %s, naming the plugin and never echoing its output', (stdout, message) => {
    expect(() => parseExecCredential(plugin(), stdout)).toThrow(`plugin "get-token" of user "me" ${message}`);
    expect(() => parseExecCredential(plugin(), stdout)).not.toThrow(SECRET);
  });

  test('the plugin sees our environment, the kubeconfig env on top, and KUBERNETES_EXEC_INFO', () => {
    const cluster = { server: 'https://k:6443' };
    const env = execEnvironment(plugin({ env: [{ name: 'AWS_PROFILE', value: 'lab' }], cluster }), {
      PATH: '/bin',
      AWS_PROFILE: 'default',
    });
    expect(env).toMatchObject({ PATH: '/bin', AWS_PROFILE: 'lab' });
    expect(JSON.parse(env.KUBERNETES_EXEC_INFO ?? '')).toEqual({
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: { interactive: false, cluster },
    });
  });

  test('a kubeconfig env entry is passed whatever its name, __proto__ included', () => {
    const env = execEnvironment(plugin({ env: [{ name: '__proto__', value: 'x' }] }), { PATH: '/bin' });
    expect(Object.entries(env).filter(([name]) => name !== 'KUBERNETES_EXEC_INFO')).toEqual([
      ['PATH', '/bin'],
      ['__proto__', 'x'],
    ]);
  });
});

describe('the per-process cache', () => {
  const counting = (answers: string[]) => {
    const calls: string[] = [];
    const run: ExecRunner = async (command) => {
      calls.push(command);
      return { exitCode: 0, stdout: answers[Math.min(calls.length, answers.length) - 1] ?? '' };
    };
    return { run, calls };
  };

  test('an answer is reused until its expirationTimestamp, then the plugin runs again', async () => {
    const { run, calls } = counting([
      credential({ token: 'one', expirationTimestamp: '2030-01-01T00:01:00Z' }),
      credential({ token: 'two' }),
    ]);
    let now = Date.parse('2030-01-01T00:00:00Z');
    const get = execCredentialCache(run, {}, () => now);
    expect((await get(plugin())).token).toBe('one');
    now += 59_000;
    expect((await get(plugin())).token).toBe('one');
    now += 1_000;
    expect((await get(plugin())).token).toBe('two');
    now += 1e9;
    expect((await get(plugin())).token).toBe('two'); // no expiry: valid for the rest of the process
    expect(calls).toHaveLength(2);
  });

  test('two plugins are cached apart, and a failed run is not cached', async () => {
    let fail = true;
    const run: ExecRunner = async (command) =>
      fail ? { exitCode: 3, stdout: '' } : { exitCode: 0, stdout: credential({ token: command }) };
    const get = execCredentialCache(run, {});
    await expect(get(plugin())).rejects.toThrow('plugin "get-token" of user "me" exited with 3');
    fail = false;
    expect((await get(plugin())).token).toBe('get-token');
    expect((await get(plugin({ command: 'other' }))).token).toBe('other');
  });

  test('a plugin that is not installed says so with its installHint on one line', async () => {
    const get = execCredentialCache(spawnExecRunner, process.env);
    const missing = plugin({
      command: '/nonexistent/kubectl-oidc',
      installHint: 'install it:\n  \u001b[1mbrew install x\u001b[0m',
    });
    await expect(get(missing)).rejects.toThrow('is not installed: install it: brew install x');
  });
});

describe('a real plugin script and a rotating token file', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdktf-exec-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the script runs once per process with args, env and no stdin, and its token is presented', async () => {
    const script = path.join(dir, 'token.sh');
    const count = path.join(dir, 'count');
    fs.writeFileSync(
      script,
      [
        '#!/bin/sh',
        `echo run >> ${count}`,
        'stdin=$(cat)', // our stdin is Terraform's query: the plugin must read nothing
        'printf \'{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s-%s-%s"}}\' \\',
        `  "${V1}" "$1" "$TOKEN_SUFFIX" "\${#stdin}"`,
      ].join('\n'),
      { mode: 0o700 },
    );
    const exec = plugin({ command: script, args: ['abc'], env: [{ name: 'TOKEN_SUFFIX', value: 'xyz' }] });
    const ports = { readFile: nodeKubeconfigIo().readFile, exec: execCredentialCache(spawnExecRunner, process.env) };
    const conn = { origin: 'test', auth: { exec } };
    expect(await currentCredential(conn, ports)).toEqual({ token: 'abc-xyz-0' });
    expect(await currentCredential(conn, ports)).toEqual({ token: 'abc-xyz-0' });
    expect(fs.readFileSync(count, 'utf8')).toBe('run\n');
  });

  test('a tokenFile is read on every use, so a rotated token is picked up', async () => {
    const file = path.join(dir, 'token');
    const conn = { origin: 'context "x" in /k', auth: { tokenFile: file } };
    fs.writeFileSync(file, 'first\n');
    expect(await currentCredential(conn)).toEqual({ token: 'first' });
    fs.writeFileSync(file, 'second');
    expect(await currentCredential(conn)).toEqual({ token: 'second' });
    fs.rmSync(file);
    await expect(currentCredential(conn)).rejects.toThrow(`tokenFile ${file} of context "x" in /k is absent or empty`);
  });
});
