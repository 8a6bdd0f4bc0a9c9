/** The destroy relay: the destroy hooks of one target share one handler run and one session (relay.ts, run.ts). */
export * from './relay';
export * from './run';
