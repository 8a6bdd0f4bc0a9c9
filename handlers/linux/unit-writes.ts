/**
 * A host's batch apply writes its unit files and drop-ins in as few root helper requests as it can (issue 30:
 * 200 one-file requests took 0.9-7.3 s of a 13.6 s apply), and a write that fails is still its object's alone:
 * the helper names each file it put in place and runs no step after one that fails. Each write names the file it
 * replaces as this apply read it, so a hand's edit since that read is left in place and fails its object alone.
 */
import { chunked, mapConcurrent } from '../../src/core/pool';
import { writeStep, wroteCount } from '../../src/linux/root-helper';
import { ConnectionLost } from '../../src/linux/ssh';
import { fileOf, mustWrite, type OwnedFile } from '../../src/linux/unit-batch';
import type { HostShell } from './host-shell';
import { active, block, each, IN_FLIGHT, say, type Track } from './unit-track';

/**
 * What one write request holds at most: 50 files, like a removal's 50 units (each costs the host a few ms of
 * forks, and a request must end within the command budget, 30 s), and 1 MiB, which a slow link still sends
 * within that budget; a larger file goes alone. Chunks go side by side, IN_FLIGHT at once.
 */
export const WRITES_PER_REQUEST = { count: 50, bytes: 1024 * 1024 } as const;

interface Write {
  readonly track: Track;
  readonly file: OwnedFile;
}

/** Writes the file of each active track that must change, then blocks what comes after one that failed. */
export const writeAll = async (shell: HostShell, tracks: readonly Track[]): Promise<void> => {
  const writes = active(tracks).flatMap((track) => {
    const file = fileOf(track.item.change);
    return file !== undefined && mustWrite(track.item.change, track.before) ? [{ track, file }] : [];
  });
  const chunks = chunked(writes, WRITES_PER_REQUEST, ({ file }) => Buffer.byteLength(file.content, 'utf8'));
  await mapConcurrent(chunks, IN_FLIGHT, (chunk) => writeChunk(shell, chunk));
  block(tracks);
};

/**
 * One request for `writes`. When it fails, those the helper named are written, the next one failed with the
 * request's error, and the rest, none of whose steps ran, go again in one request. The one that failed is never
 * sent again: stopped between its rename and its line, it is in place, and a second write would keep it (the
 * new content) as the file its undo puts back. A refused request ran nothing: each write then goes alone.
 */
const writeChunk = async (shell: HostShell, writes: readonly Write[]): Promise<void> => {
  let rest = writes;
  while (rest.length > 0) {
    const steps = rest.map(({ track, file }) => writeStep(file.object, file.content, track.before.fileSha256));
    for (const { track } of rest) track.replaced = track.before.fileSha256 !== undefined;
    let result: { code: number; stdout: string; stderr: string };
    try {
      result = await shell.helper(
        steps,
        rest.map(({ file }) => file.content),
      );
    } catch (error) {
      if (error instanceof ConnectionLost) throw error;
      return each(
        rest.map(({ track }) => track),
        (track) => writeOne(shell, track),
      );
    }
    const done = result.code === 0 ? rest.length : wroteCount(result.stdout);
    rest.slice(0, done).forEach(wrote);
    const [failed, step] = [rest[done], steps[done]];
    if (failed === undefined || step === undefined) return;
    failed.track.cause = shell.failed([step], result);
    rest = rest.slice(done + 1);
  }
};

/** The object's write alone: the request's error is its own. */
const writeOne = async (shell: HostShell, track: Track): Promise<void> => {
  const file = fileOf(track.item.change);
  if (file === undefined) return;
  await shell.write(file.object, file.content, track.before.fileSha256);
  wrote({ track, file });
};

const wrote = ({ track, file }: Write): void => {
  track.wrote = true;
  say(track, `wrote ${file.path}`);
};
