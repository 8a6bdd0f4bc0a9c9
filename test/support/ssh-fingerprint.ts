// OpenSSH-style host-key fingerprints ("SHA256:<base64, no padding>") for pinning with ssh2's hostVerifier,
// so tests compare the same string `ssh-keygen -lf` prints instead of silently accepting any host key.
import { createHash, timingSafeEqual } from 'node:crypto';
import { utils } from 'ssh2';

/** Fingerprint of a raw SSH public-key blob (what ssh2 passes to hostVerifier without hostHash). */
export function fingerprintOf(publicKeyBlob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(publicKeyBlob).digest('base64').replace(/=+$/, '');
}

/** Fingerprint of an OpenSSH public key line ("ssh-ed25519 AAAA... comment") or private key PEM. */
export function fingerprintOfKey(key: string): string {
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error) throw parsed;
  return fingerprintOf(parsed.getPublicSSH());
}

/** Constant-time equality of two fingerprints (strings of possibly different length). */
export function sameFingerprint(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
