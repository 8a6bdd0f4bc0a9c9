// The fake PVE as a process (bundled to build/fake-pve.js): for the demo and e2e runs, and for users as
// `cdktf-homelab fake-pve` (bin/cdktf-homelab.js), a simulator to point a stack or a CI job at. Prints one
// JSON line `{"url","port","fingerprint","token","caFile"}` once listening, so callers never guess a port,
// then how to use it on stderr; stops on a signal. With --state DIR it keeps its state in DIR/state.json
// and serves DIR's certificate (made once), so a restart changes neither what it holds nor what it pins.
// Node builtins and this package's own files only, so the bundle needs nothing from node_modules.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { DEFAULT_TOKENS } from './auth';
import { messageOf } from './narrow';
import { ensureSelfSigned } from './self-signed';
import { startPveSimulator, type PveSimulator, type FakePveOptions, type TokenGrant } from './server';
import { keepPrivate, privateStateDir, restoreState, stateOf, stateWriter } from './state-file';

/**
 * What it starts with when a flag is left out: what examples/network.ts points at. One table for the
 * code and its help, which had drifted apart (the help said n1 while it started n2 and n3: issue 28).
 */
const DEFAULTS = { port: '18006', state: '.fake-pve', nodes: 'n2,n3' } as const;

const USAGE = `usage: fake-pve [--port N] [--state DIR] [--tls-dir DIR] [--token ID=SECRET]...
                [--audit-token ID=SECRET]... [--old-server]
                [--cluster NAME | --standalone] [--nodes n1,n2,...] [--stage NODE=FILE]...
  --port N       listen on 127.0.0.1:N (0: a free port; default ${DEFAULTS.port})
  --state DIR    keep metric servers and interfaces files in DIR/state.json across restarts, and
                 serve HTTPS with DIR/key.pem and DIR/cert.pem (made with openssl when missing)
                 (default ${DEFAULTS.state}, unless --tls-dir is given)
  --tls-dir DIR  serve HTTPS with DIR/key.pem and DIR/cert.pem, keeping no state
  --token        a token with Sys.Audit + Sys.Modify on / (repeatable; replaces the default
                 root@pam!homelab=fake-secret-0000)
  --audit-token  a token with Sys.Audit only (repeatable)
  --nodes        the cluster's members (default ${DEFAULTS.nodes}; n1 with --standalone)
  --stage        NODE's interfaces.new starts as FILE: a staged change for a stack to find
env: FAKE_PVE_PORT, FAKE_PVE_TLS_DIR, FAKE_PVE_TOKEN (ID=SECRET) fill in what the flags leave out`;

const fail = (message: string, usage = true): never => {
  process.stderr.write(`fake-pve: ${message}\n${usage ? `${USAGE}\n` : ''}`);
  process.exit(2);
};

// The secret follows the LAST '=', as PVE splits the header value (A5).
const parseToken = (spec: string, privileges: TokenGrant['privileges']): [string, TokenGrant] => {
  const split = spec.lastIndexOf('=');
  if (split <= 0 || split === spec.length - 1) {
    fail(`a token must look like USER@REALM!ID=SECRET, got '${spec}'`);
  }
  return [spec.slice(0, split), { secret: spec.slice(split + 1), privileges }];
};

interface Launch {
  readonly options: FakePveOptions;
  readonly stateDir?: string;
  readonly caFile?: string;
  readonly staged: ReadonlyArray<[string, string]>;
}

const parseArgs = (argv: readonly string[]): Launch => {
  const tokens: Array<[string, TokenGrant]> = [];
  const staged: Array<[string, string]> = [];
  let port = process.env.FAKE_PVE_PORT ?? DEFAULTS.port;
  let tlsDir = process.env.FAKE_PVE_TLS_DIR;
  let stateDir: string | undefined;
  let oldServer = false;
  let clusterName: string | null | undefined;
  let nodes: string[] | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = (): string => argv[++i] ?? fail(`${flag} needs a value`);
    if (flag === '--port') port = value();
    else if (flag === '--tls-dir') tlsDir = value();
    else if (flag === '--state') stateDir = resolve(value());
    else if (flag === '--token') tokens.push(parseToken(value(), 'modify'));
    else if (flag === '--audit-token') tokens.push(parseToken(value(), 'audit'));
    else if (flag === '--old-server') oldServer = true;
    else if (flag === '--cluster') clusterName = value();
    else if (flag === '--standalone') clusterName = null;
    else if (flag === '--nodes') nodes = value().split(',').filter(Boolean);
    else if (flag === '--stage') {
      const spec = value();
      const split = spec.indexOf('=');
      if (split <= 0) fail(`--stage must look like NODE=FILE, got '${spec}'`);
      staged.push([spec.slice(0, split), spec.slice(split + 1)]);
    } else if (flag === '--help' || flag === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else fail(`unknown argument '${flag}'`);
  }
  if (tokens.length === 0 && process.env.FAKE_PVE_TOKEN) {
    tokens.push(parseToken(process.env.FAKE_PVE_TOKEN, 'modify'));
  }
  const portNumber = port === undefined ? 0 : Number(port);
  if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535) {
    fail(`--port must be an integer from 0 to 65535, got '${port}'`);
  }
  if (stateDir === undefined && tlsDir === undefined) stateDir = resolve(DEFAULTS.state);
  if (nodes === undefined && clusterName !== null) nodes = DEFAULTS.nodes.split(',');
  if (stateDir !== undefined) privateStateDir(stateDir);
  if (stateDir !== undefined && tlsDir === undefined) {
    ensureSelfSigned(stateDir);
    keepPrivate(stateDir, ['key.pem', 'cert.pem']);
    tlsDir = stateDir;
  }
  const pem = (dir: string, name: string): string => readFileSync(join(dir, name), 'utf8');
  const tls = tlsDir ? { key: pem(tlsDir, 'key.pem'), cert: pem(tlsDir, 'cert.pem') } : undefined;
  const options = {
    port: portNumber,
    tls,
    oldServer,
    clusterName,
    nodes,
    tokens: tokens.length > 0 ? Object.fromEntries(tokens) : undefined,
  };
  return { options, stateDir, caFile: tlsDir ? resolve(tlsDir, 'cert.pem') : undefined, staged };
};

/** How to point a stack at it, for a human: the same facts as the JSON line. */
const howTo = (fake: PveSimulator, token: string, caFile: string | undefined, stateDir: string | undefined): string =>
  [
    `fake PVE listening on ${fake.url}${stateDir ? `, state in ${join(stateDir, 'state.json')}` : ''}`,
    `  export PROXMOX_VE_ENDPOINT=${fake.url}`,
    `  export PROXMOX_VE_API_TOKEN='${token}'`,
    caFile ? `  export PROXMOX_VE_CA_FILE=${caFile}` : `  export PROXMOX_VE_INSECURE=true`,
    '',
  ].join('\n');

const main = async (): Promise<void> => {
  const launch = parseArgs(process.argv.slice(2));
  const stateFile = launch.stateDir === undefined ? undefined : join(launch.stateDir, 'state.json');
  const nodes = (launch.options.nodes ?? ['n1']).map(String);
  const write = stateFile === undefined ? undefined : stateWriter(stateFile);
  // Saved after each answered request but a GET, which changes nothing saved (a reload's PUT promotes the
  // staged file; its task's polls only read): a save renders the whole state, so saving after each GET made
  // a read of 1000 metric servers 0.9 s instead of 0.4 (measured, 2026-12-05). Restored before any request
  // can arrive (the listener runs on a later tick).
  const fake: PveSimulator = await startPveSimulator({
    ...launch.options,
    afterRequest: (method) => (method === 'GET' ? undefined : save()),
  });
  const save = (): void => {
    if (write === undefined) return;
    try {
      write(stateOf(fake, nodes));
    } catch (err) {
      process.stderr.write(`fake-pve: could not save ${stateFile}: ${messageOf(err)}\n`);
    }
  };
  if (stateFile !== undefined) restoreState(fake, stateFile);
  for (const [node, file] of launch.staged) {
    fake.setInterfacesFiles(node, { staged: readFileSync(file, 'utf8') });
  }
  save();
  const [tokenId, grant] = Object.entries(launch.options.tokens ?? DEFAULT_TOKENS)[0] ?? [];
  const token = `${tokenId}=${grant?.secret}`;
  const fingerprint = launch.options.tls ? new X509Certificate(launch.options.tls.cert).fingerprint256 : undefined;
  const ready = { url: fake.url, port: fake.port, fingerprint, token, caFile: launch.caFile };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  process.stderr.write(howTo(fake, token, launch.caFile, launch.stateDir));
  const shutdown = (): void => {
    fake.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`fake-pve: stop failed: ${messageOf(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
};

main().catch((err: unknown) => fail(messageOf(err), false));
