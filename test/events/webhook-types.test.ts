import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_TYPES } from '../../src/events/index.js';

const contract = JSON.parse(readFileSync(new URL('../../fixtures/contract.json', import.meta.url), 'utf8'));

describe('webhook type table', () => {
  it('lists exactly the contract event types, each under the webhook whose schema carries it', () => {
    expect(Object.keys(WEBHOOK_TYPES)).toEqual(contract.components.schemas.WebhookType.enum);
    const carriers: Record<string, string> = {};
    for (const [name, item] of Object.entries<any>(contract.webhooks)) {
      const ref: string = item.post.requestBody.content['application/json'].schema.$ref;
      const schema = contract.components.schemas[ref.split('/').pop()!];
      for (const type of schema.allOf[1].properties.type.enum) carriers[type] = name;
    }
    for (const [type, webhook] of Object.entries(WEBHOOK_TYPES)) expect([type, webhook]).toEqual([type, carriers[type] ?? null]);
  });
});
