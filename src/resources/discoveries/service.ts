import { discoveries, type DiscoveryRow } from '../../rules/rails.js';

/** `GET /discoveries`: the institutions of the rails table, by country and currency. */
export function listDiscoveries(filter: { country?: string | undefined; currency?: string | undefined }): { data: DiscoveryRow[] } {
  const query: { country?: string; currency?: string } = {};
  if (filter.country !== undefined) query.country = filter.country;
  if (filter.currency !== undefined) query.currency = filter.currency;
  return { data: discoveries(query) };
}
