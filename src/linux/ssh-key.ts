/**
 * The credential a connection offers: the private key in the variable the target names, checked
 * before connecting so a key ssh2 cannot read fails naming the host, the variable and the formats
 * that work (never echoing the key); or, with no variable named, the ssh agent.
 */
import { type ConnectConfig, utils } from 'ssh2';
import { HandlerError } from '../core/errors';
import { describeHost, type SshTarget } from './target';

/** What ssh2 1.17 reads with no passphrase (each one authenticates in test/faults/ssh-key-format.test.ts). */
export const KEY_FORMATS =
  'an unencrypted OpenSSH key (BEGIN OPENSSH PRIVATE KEY, as ssh-keygen writes it: ed25519, ecdsa or rsa) ' +
  'or an unencrypted PEM RSA or EC key (BEGIN RSA PRIVATE KEY, BEGIN EC PRIVATE KEY); ' +
  'an encrypted key works through the ssh agent (ssh-add it and leave privateKeyEnv unset)';

export const credentials = (target: SshTarget, env: NodeJS.ProcessEnv): Partial<ConnectConfig> => {
  const host = { Host: describeHost(target) };
  if (target.privateKeyEnv !== undefined) {
    const name = target.privateKeyEnv;
    const key = env[name];
    if (key === undefined || key === '') {
      throw new HandlerError(
        'SSH private key missing',
        `environment variable ${name} is not set; export the key text before running terraform`,
        host,
      );
    }
    const problem = keyProblem(key);
    if (problem !== undefined) {
      throw new HandlerError(
        'SSH private key unreadable',
        `environment variable ${name} ${problem}; use ${KEY_FORMATS}`,
        host,
      );
    }
    return { privateKey: key };
  }
  if (env.SSH_AUTH_SOCK === undefined || env.SSH_AUTH_SOCK === '') {
    throw new HandlerError(
      'No SSH credential',
      'set privateKeyEnv on the SshHost, or run terraform with an ssh agent (SSH_AUTH_SOCK)',
      host,
    );
  }
  return { agent: env.SSH_AUTH_SOCK };
};

/**
 * Why `text` is not a private key ssh2 can sign with, phrased to follow "environment variable X", or
 * undefined when it is one. Only ssh2's reason and fixed hints are used: no part of the text.
 */
export const keyProblem = (text: string): string | undefined => {
  const parsed = utils.parseKey(text);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key !== undefined && !(key instanceof Error) && key.isPrivateKey()) return undefined;
  if (key !== undefined && !(key instanceof Error)) return 'holds a public key, not the private one';
  const reason = withoutKeyText(key?.message ?? 'no key found');
  const hint = hintFor(text, reason);
  return `holds no private key ssh2 can read (${reason})${hint === undefined ? '' : `: ${hint}`}`;
};

const hintFor = (text: string, reason: string): string | undefined => {
  if (/-----BEGIN (ENCRYPTED )?PRIVATE KEY-----/.test(text))
    return (
      'it is PKCS#8 (BEGIN PRIVATE KEY, as openssl genpkey writes it), which ssh2 does not read; ' +
      "`ssh-keygen -p -N '' -f <file>` rewrites an RSA or ECDSA one as OpenSSH, " +
      'and `ssh-keygen -t ed25519` makes a new key'
    );
  if (/passphrase/i.test(reason)) return 'the key is encrypted, and no passphrase is read from the environment';
  if (!text.includes('\n') && text.includes('\\n'))
    return 'its line breaks are the two characters \\n: put the key text with real line breaks in the variable';
  return undefined;
};

/** ssh2's messages are fixed texts; this keeps a key-like run out should one ever carry some. */
const withoutKeyText = (message: string): string => message.replace(/[A-Za-z0-9+/=]{24,}/g, '…').slice(0, 200);
