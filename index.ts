export * from './constructs/core/managed-object';
export * from './constructs/pve/cluster';
export * from './constructs/pve/metric-server';
export type { MetricServerType } from './src/pve/metric-fields';
