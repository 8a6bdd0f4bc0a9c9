/**
 * The PVE domain: one client per handler process for a cluster's members, shared by every PVE
 * kind, with the token of the run's role (a plan's reads never need the write token), or one that
 * token minted for the run (mint.ts), the
 * table of kinds the bundle serves (exactly the registry's PVE kinds), and the batch apply that stages each
 * node's interfaces in the order its plan checked (stage-order.ts).
 */
import type { HandlerDomain } from '../../src/core/kind';
import type { KindsOf } from '../../src/core/registry';
import type { PveApi, PveConnect } from '../../src/pve/api';
import { PveClient } from '../../src/pve/client';
import { mintedSession } from '../../src/pve/mint';
import { type PveTarget, pveTargetSchema, targetFor } from '../../src/pve/target';

export const pveDomain = (connect: PveConnect = defaultConnect) =>
  ({
    target: pveTargetSchema,
    describe: (target) => `PVE cluster ${target.endpoints.join(', ')}`,
    connect: async (target, context, role) => {
      const login = targetFor(target, role);
      const bootstrap = connect(login, context.env);
      const { mint } = login;
      if (mint === undefined) return bootstrap;
      return mintedSession({ ...login, mint }, role, bootstrap, connect, context.clock, context.log);
    },
    close: (api) => api.close(),
    applyAll: async (api, items, context) => (await import('./stage-order')).applyPve(api, items, context),
    // The shared loop stage-order.ts hands the items to reads the stop signal between them.
    stopsAtSafePoints: true,
    kinds: {
      'metric-server': async () => (await import('./metric-server')).metricServerKind,
      'network-interface': async () => (await import('./network-interface')).networkInterfaceKind,
      'network-apply': async () => (await import('./network-apply')).networkApplyKind,
    },
  }) satisfies HandlerDomain<PveApi, PveTarget, KindsOf<'pve'>>;

const defaultConnect: PveConnect = (target, env, tokenName) => new PveClient(target, env, undefined, { tokenName });
