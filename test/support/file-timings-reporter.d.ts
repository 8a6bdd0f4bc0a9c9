/** The pure part of file-timings-reporter.js, for its test. */
export declare const timingLines: (rows: ReadonlyArray<readonly [string, number, boolean]>) => string[];
