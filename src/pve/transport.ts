/**
 * One undici agent per cluster member, with that member's TLS rule: a CA file, a pinned
 * SHA-256 fingerprint, or an explicit `insecure`. A pin mismatch ends the handshake before any
 * request is sent and names the fingerprint the member offered, so the user can pin it.
 */
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { HandlerError } from '../core/errors';
import { displayFingerprint, normalizeFingerprint, type PveTarget } from './target';

const CONNECT_TIMEOUT_MS = 5_000;

/** The agent for one member, honouring the target's TLS settings. */
export const memberAgent = (target: PveTarget, endpoint: string): Agent => {
  const timeoutMs = (target.timeoutSeconds ?? 30) * 1000;
  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  const pin = target.fingerprints?.[endpoint];
  if (pin !== undefined) {
    return new Agent({ ...timeouts, connect: pinnedConnector(normalizeFingerprint(pin), endpoint) });
  }
  const tls = target.insecure
    ? { rejectUnauthorized: false }
    : target.caFile !== undefined
      ? { ca: readCa(target.caFile) }
      : {};
  return new Agent({ ...timeouts, connect: { ...tls, timeout: CONNECT_TIMEOUT_MS } });
};

const readCa = (path: string): Buffer => {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new HandlerError('PVE CA file unreadable', `caFile ${path} cannot be read (${(error as Error).message}); point caFile at the PEM of the CA that signed the members' certificates`);
  }
};

/** A connector that accepts exactly one certificate, whoever signed it. */
const pinnedConnector = (pin: string, endpoint: string): buildConnector.connector => {
  const base = buildConnector({ rejectUnauthorized: false, timeout: CONNECT_TIMEOUT_MS });
  return (options, callback) =>
    base(options, (error, socket) => {
      if (error !== null) return callback(error, null);
      const offered = (socket as TLSSocket).getPeerCertificate?.()?.fingerprint256;
      if (offered !== undefined && normalizeFingerprint(offered) === pin) return callback(null, socket);
      socket.destroy();
      const shown = offered === undefined ? 'no certificate' : displayFingerprint(offered);
      const mismatch = new Error(
        `${endpoint} offered certificate ${shown}, which is not the pinned ${displayFingerprint(pin)}`,
      );
      return callback(Object.assign(mismatch, { code: 'HOMELAB_PIN_MISMATCH' }), null);
    });
};
