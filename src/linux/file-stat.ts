/**
 * What the read's `stat` lines say of one file, as the plan's basis, the record and the privacy rule read it. A leaf,
 * so unit-loaded.ts and private-files.ts, which decide from it, need not import each other (a circle, farm-studio
 * look at c0f8ab6).
 */

/**
 * What `stat -L` said of a file: when it last changed (its ctime), `<device>:<inode>`, which names it, and its size
 * (from a read of this version: unit-read.ts).
 */
export interface FileStat {
  readonly time: number;
  readonly file: string;
  readonly bytes?: number;
  /** Whether other users may read it (its mode, and its `.d/` directory's: private-files.ts); unknown when absent. */
  readonly othersRead?: boolean;
}
