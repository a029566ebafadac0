/**
 * A bounded get-or-make cache of imported keys, by hex: importing a key costs more than using
 * it, and some keys are used again and again (a platform's OTP target key, a session's stamp
 * key). When full, the oldest entry goes first. Pure: no DB, no clock.
 */
export class KeyCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly size: number) {}

  /** The entry for `id`, made (and kept) on first use. */
  get(id: string, make: () => V): V {
    let value = this.entries.get(id);
    if (value === undefined) {
      value = make();
      if (this.entries.size >= this.size) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(id, value);
    }
    return value;
  }

  /** The entry for `id`, a promise made on first use; a rejected one is dropped, so the next call tries again. */
  getAsync<T>(this: KeyCache<Promise<T>>, id: string, make: () => Promise<T>): Promise<T> {
    return this.get(id, () => {
      const promise = make();
      promise.catch(() => this.entries.delete(id));
      return promise;
    });
  }
}
