/**
 * Remembers which cluster member last answered, across handler processes. A plan runs one process
 * per object, so without this every read would first wait on the same dead member again.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { digestOf } from '../core/canonical';

export interface LastGoodStore {
  load(): string | undefined;
  save(endpoint: string): void;
}

/** A file under the temp directory, keyed by the member list; losing it only costs a retry. */
export const fileStore = (endpoints: readonly string[], dir = tmpdir()): LastGoodStore => {
  const path = join(dir, `cdktf-homelab-pve-${digestOf(endpoints).slice(0, 16)}.last-good`);
  return {
    load: () => {
      try {
        return readFileSync(path, 'utf8').trim() || undefined;
      } catch {
        return undefined; // never written yet: plain declared order
      }
    },
    save: (endpoint) => {
      try {
        writeFileSync(`${path}.${process.pid}`, endpoint);
        renameSync(`${path}.${process.pid}`, path);
      } catch {
        // an unwritable temp dir only loses the hint, never the request
      }
    },
  };
};
