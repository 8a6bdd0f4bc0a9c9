// The certificate a user's fake PVE serves when given no --tls-dir: made once with openssl into its
// state directory and reused, so the fingerprint a stack pins or the CA file it trusts stays valid
// across restarts. Only for 127.0.0.1 and localhost, the addresses the fake listens on.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { isRecord } from '../../core/records';
import { messageOf } from './narrow';

/** `dir`/key.pem and `dir`/cert.pem, made by openssl (a P-256 key, ten years) when either is missing. */
export const ensureSelfSigned = (dir: string): void => {
  if (existsSync(join(dir, 'key.pem')) && existsSync(join(dir, 'cert.pem'))) return;
  const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'];
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '3650'];
  const out = ['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')];
  try {
    execFileSync('openssl', ['req', '-x509', ...key, ...subject, ...out], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    // execFileSync's error carries the child's stderr, which says why openssl refused.
    const stderr = isRecord(err) && Buffer.isBuffer(err.stderr) ? err.stderr.toString().trim() : '';
    const detail = stderr || messageOf(err);
    throw new Error(`could not make a certificate with openssl (${detail}); install openssl or pass --tls-dir`, {
      cause: err,
    });
  }
};
