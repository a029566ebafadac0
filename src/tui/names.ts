import type { SandboxClient } from './client.js';

/**
 * Names of the customers other rows point at (an account's owner, a card's holder), fetched once
 * each and in batches as rows come on screen; a column shows the id's end until the name is in.
 */
class NameCache {
  private names = new Map<string, string>();
  private asked = new Set<string>();
  private listeners = new Set<() => void>();
  private client: SandboxClient | undefined;

  /** The name of customer `id`, or undefined while it is being fetched. */
  of(client: SandboxClient, id: string | undefined | null): string | undefined {
    if (!id) return undefined;
    if (this.client !== client) {
      this.client = client;
      this.names.clear();
      this.asked.clear();
    }
    const name = this.names.get(id);
    if (name !== undefined || this.asked.has(id)) return name;
    if (this.asked.size > 10_000) this.asked.clear();
    this.asked.add(id);
    client.api<{ fullName?: string; businessInfo?: { legalName?: string } }>('GET', `/customers/${encodeURIComponent(id)}`).then(
      (c) => {
        if (this.client !== client) return;
        this.names.set(id, c.fullName ?? c.businessInfo?.legalName ?? '');
        for (const listener of this.listeners) listener();
      },
      () => undefined,
    );
    return undefined;
  }

  onUpdate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export const customerNames = new NameCache();

/** A column's text for the customer an id names: the name once known, the id's end meanwhile, `none` without an id. */
export const customerCell = (client: SandboxClient, id: string | undefined | null, none = ''): string =>
  id ? (customerNames.of(client, id) ?? `…${id.slice(-8)}`) : none;
