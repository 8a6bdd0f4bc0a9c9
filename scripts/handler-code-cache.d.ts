/** The bundle's source inside a handler file that carries V8's code cache for it (handler-code-cache.js). */
export declare const sourceOf: (text: string) => string;
/** A handler file of `source` and a code cache for it, as the bundler writes one. */
export declare const loaderOf: (source: string, cache: Buffer) => string;
