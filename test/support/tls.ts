/**
 * A throwaway self-signed certificate for 127.0.0.1 (or for other names), made with openssl per test run, so TLS
 * tests exercise real handshakes (CA trust, pins, refusals, server names) instead of a mocked socket.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';

export interface TestCert {
  readonly key: string;
  readonly cert: string;
  /** The PEM file path, usable as a CA file. */
  readonly certFile: string;
  /** SHA-256 fingerprint as `AA:BB:...`. */
  readonly fingerprint: string;
  cleanup(): void;
}

/** `names` become the subjectAltName (`IP:…` or `DNS:…`), the first of them without its prefix the CN. */
export const makeCert = (names: readonly string[] = ['IP:127.0.0.1']): TestCert => {
  const dir = mkdtempSync(join(tmpdir(), 'homelab-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      `/CN=${(names[0] ?? '').replace(/^\w+:/, '')}`,
      '-addext',
      `subjectAltName=${names.join(',')}`,
    ],
    { stdio: 'pipe' },
  );
  const cert = readFileSync(certFile, 'utf8');
  return {
    key: readFileSync(keyFile, 'utf8'),
    cert,
    certFile,
    fingerprint: new X509Certificate(cert).fingerprint256,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
};
