/**
 * The destroy relay, one module: the destroy hooks of one target, run by Terraform in parallel, share one
 * handler run and one session led by one of them (relay.ts: finding and talking to the leader; run.ts: the
 * run's session and batches). It prevents a process and a connection per destroyed object, and a failing or
 * killed hook leaving a socket, a server, a session or another hook's destroy half done.
 */
export * from './batching';
export * from './fifo-lead';
export * from './fifo-protocol';
export * from './hook-lead';
export * from './lead-signals';
export * from './private-group';
export * from './relay';
export * from './run';
export * from './stale-sockets';
export * from './teardown';
export * from './whole-destroy';
