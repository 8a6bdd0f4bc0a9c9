/**
 * Shared pieces for tests of the PVE client against loopback members: a client with its
 * last-good memory in a private temp dir (never the user's), and a port where connect is refused.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastGoodStore } from '../../src/core/http/last-good';
import { PveClient } from '../../src/pve/client';
import type { PveTarget } from '../../src/pve/target';

export const TOKEN_ENV = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };

/** A fresh 0700 directory of our own under the temp dir. */
export const privateTempDir = (): string => mkdtempSync(join(tmpdir(), 'homelab-last-good-'));

/** A client of `target` whose last-good memory lives under `memoryBase`. */
export const pveClient = (target: Partial<PveTarget> & Pick<PveTarget, 'endpoints'>, memoryBase: string): PveClient =>
  new PveClient(
    { tokenEnv: 'PROXMOX_VE_API_TOKEN', ...target },
    TOKEN_ENV,
    lastGoodStore('pve', target.endpoints, memoryBase),
  );

/** An https URL of a loopback port with nothing listening: connect is refused. */
export const closedPort = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `https://127.0.0.1:${port}`;
};
