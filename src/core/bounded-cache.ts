/**
 * A bounded get-or-make cache by string key, for values that cost more to make than to use and
 * are asked for again and again (an imported key such as a platform's OTP target key, a list's
 * validated query). When full, the oldest entry goes first. Pure: no DB, no clock.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly size: number) {}

  /** The entry for `id`, if one is kept. */
  peek(id: string): V | undefined {
    return this.entries.get(id);
  }

  /** Keeps `value` for `id` (the oldest entry goes when full). */
  set(id: string, value: V): void {
    if (!this.entries.has(id) && this.entries.size >= this.size) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, value);
  }

  /** The entry for `id`, made (and kept) on first use. */
  get(id: string, make: () => V): V {
    let value = this.entries.get(id);
    if (value === undefined) {
      value = make();
      this.set(id, value);
    }
    return value;
  }
}

/**
 * Freezes `value` and everything in it, so one kept value can be handed to every caller: a
 * caller that tries to change it fails (in strict mode) instead of changing it for the others.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
