/**
 * The PVE batch apply: each node's interface stages in the order its plan checked (src/pve/stage-order.ts) over the
 * node's rows as the run starts, so two linked mtus changed at once (a bridge and its port lowered) are staged in
 * an order PVE's writer accepts at every stage, rather than synth's fixed one that stopped part-way on its 500.
 */
import * as z from 'zod/mini';
import { applyInOrder } from '../../src/core/batch-apply';
import type { ApplyItem, ApplyOutcomes, KindContext } from '../../src/core/kind';
import { mapByKey } from '../../src/core/pool';
import { PARALLEL_NODES, type PveApi } from '../../src/pve/api';
import { networkInterfaceSpec, type NetworkInterfaceSpec } from '../../src/pve/network-interface';
import { stagingOrder } from '../../src/pve/stage-order';

type Item = ApplyItem<PveApi, unknown>;

/** An interface item's spec: its kind's `change` (network-interface.ts), the spec parsed at the boundary. */
const specOf = (item: Item): NetworkInterfaceSpec | undefined => {
  const parsed = item.kind === 'network-interface' ? z.safeParse(networkInterfaceSpec, item.change) : undefined;
  return parsed?.success === true ? parsed.data : undefined;
};

/**
 * The node's interface items chained in staging order: each after the one staged before it, no longer after the
 * others of the node (their order is now the chain's); every other edge kept.
 */
const chained = (items: readonly Item[], rows: unknown): Map<string, Item> => {
  const specs = items.flatMap((item) => {
    const spec = specOf(item);
    return spec === undefined ? [] : [{ ...spec, item }];
  });
  const mine = new Set(items.map((item) => item.name));
  const { order } = stagingOrder(rows, specs);
  return new Map(
    order.map(({ item }, index) => {
      const previous = order[index - 1]?.item.name;
      const after = [...item.after.filter((name) => !mine.has(name)), ...(previous === undefined ? [] : [previous])];
      return [item.name, { ...item, after }];
    }),
  );
};

/** Every item, each node's interfaces chained in staging order, applied by the shared loop. */
export const applyPve = async (api: PveApi, items: readonly Item[], context: KindContext): Promise<ApplyOutcomes> => {
  const byNode = new Map<string, Item[]>();
  for (const item of items) {
    const node = specOf(item)?.node;
    if (node !== undefined) byNode.set(node, [...(byNode.get(node) ?? []), item]);
  }
  const nodes = [...byNode.keys()];
  // A node whose list fails keeps synth's order: each of its items' own read fails and names why.
  const rows = await mapByKey(nodes, PARALLEL_NODES, (node) =>
    api.call<unknown>('GET', `nodes/${node}/network`).catch(() => undefined),
  );
  const reordered = new Map<string, Item>();
  for (const node of nodes) {
    const live = rows.get(node);
    if (Array.isArray(live))
      for (const [name, item] of chained(byNode.get(node) ?? [], live)) reordered.set(name, item);
  }
  // The network apply tells the interfaces this run stages from staging by someone else (staging-basis.ts).
  const batch = items.flatMap((item) => (item.change === undefined ? [] : [item.change]));
  return applyInOrder(
    api,
    items.map((item) => reordered.get(item.name) ?? item),
    { ...context, batch },
  );
};
