export * from './constructs/core/managed-object';
export * from './constructs/pve/cluster';
export * from './constructs/pve/metric-server';
export type { MetricServerType } from './src/pve/metric-fields';
export * from './constructs/linux/ssh-host';
export * from './constructs/linux/systemd-unit';
export * from './src/linux/render-unit';
export * from './constructs/core/retired-object';
