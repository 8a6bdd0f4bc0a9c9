// The fake PVE as a process for the demo and e2e runs (bundled to build/fake-pve.js): prints one
// JSON line `{"url","port"}` once listening, so callers never guess a port, and stops on a signal.
// Node builtins and ./server only, so the bundle needs nothing from node_modules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { startFakePve, type FakePveOptions, type TokenGrant } from './server';

const USAGE = `usage: fake-pve [--port N] [--tls-dir DIR] [--token ID=SECRET]...
                [--audit-token ID=SECRET]... [--old-server]
                [--cluster NAME | --standalone] [--nodes n1,n2,...]
  --tls-dir DIR  serve HTTPS with DIR/key.pem and DIR/cert.pem
  --token        a token with Sys.Audit + Sys.Modify on / (repeatable; replaces the default
                 root@pam!homelab=fake-secret-0000)
  --audit-token  a token with Sys.Audit only (repeatable)
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

const parseArgs = (argv: readonly string[]): FakePveOptions => {
  const tokens: Array<[string, TokenGrant]> = [];
  let port = process.env.FAKE_PVE_PORT;
  let tlsDir = process.env.FAKE_PVE_TLS_DIR;
  let oldServer = false;
  let clusterName: string | null | undefined;
  let nodes: string[] | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = (): string => argv[++i] ?? fail(`${flag} needs a value`);
    if (flag === '--port') port = value();
    else if (flag === '--tls-dir') tlsDir = value();
    else if (flag === '--token') tokens.push(parseToken(value(), 'modify'));
    else if (flag === '--audit-token') tokens.push(parseToken(value(), 'audit'));
    else if (flag === '--old-server') oldServer = true;
    else if (flag === '--cluster') clusterName = value();
    else if (flag === '--standalone') clusterName = null;
    else if (flag === '--nodes') nodes = value().split(',').filter(Boolean);
    else if (flag === '--help' || flag === '-h') {
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
  const pem = (dir: string, name: string): string => readFileSync(join(dir, name), 'utf8');
  const tls = tlsDir ? { key: pem(tlsDir, 'key.pem'), cert: pem(tlsDir, 'cert.pem') } : undefined;
  return {
    port: portNumber,
    tls,
    oldServer,
    clusterName,
    nodes,
    tokens: tokens.length > 0 ? Object.fromEntries(tokens) : undefined,
  };
};

const main = async (): Promise<void> => {
  const fake = await startFakePve(parseArgs(process.argv.slice(2)));
  process.stdout.write(`${JSON.stringify({ url: fake.url, port: fake.port })}\n`);
  const shutdown = (): void => {
    fake.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`fake-pve: stop failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
};

main().catch((err: unknown) => fail((err as Error).message, false));
