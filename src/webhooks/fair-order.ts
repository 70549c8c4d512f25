/**
 * Round robin over merchants (and environments): the first item of every merchant, then the second of
 * every merchant, and so on, each merchant's items in their given order, merchants in order of their
 * first item. So one merchant's thousand deliveries cannot go ahead of another merchant's one.
 */
export function roundRobinByMerchant<T extends { merchant_id: string; environment: string }>(items: readonly T[]): T[] {
  const queues = new Map<string, T[]>();
  for (const item of items) {
    const key = `${item.environment}:${item.merchant_id}`;
    const queue = queues.get(key);
    if (queue) queue.push(item);
    else queues.set(key, [item]);
  }
  const lanes = [...queues.values()];
  const out: T[] = [];
  for (let turn = 0; out.length < items.length; turn++) {
    for (const lane of lanes) if (turn < lane.length) out.push(lane[turn]);
  }
  return out;
}
