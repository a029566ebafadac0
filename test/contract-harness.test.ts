// Proves the contract harness itself: it passes bodies that fit, fails bodies that
// do not, routes concrete paths to the right operation, and compiles the whole
// contract under Ajv.
import { describe, expect, it } from 'vitest';
import {
  assertFitsContract,
  assertFitsSchema,
  assertFitsWebhook,
  compileAllContractSchemas,
  contractOperationCount,
  findOperation,
} from './helpers/contract.js';
import { operations } from '../src/generated/operations.js';

const platformConfig = {
  id: 'PlatformConfig:019542f5-b3e7-1d02-0000-000000000003',
  umaDomain: 'mycompany.com',
  webhookEndpoint: 'https://api.mycompany.com/webhooks/uma',
  supportedCurrencies: [
    {
      currencyCode: 'USD',
      minAmount: 100,
      maxAmount: 1000000,
      requiredCounterpartyFields: [
        { name: 'FULL_NAME', mandatory: true },
        { name: 'BIRTH_DATE', mandatory: false },
      ],
      enabledTransactionTypes: ['OUTGOING', 'INCOMING'],
    },
  ],
  isRegulatedFinancialInstitution: false,
  createdAt: '2025-06-15T12:30:45Z',
  updatedAt: '2025-06-15T12:30:45Z',
};

describe('contract harness', () => {
  it('knows every operation, and agrees with src/generated/operations.ts', () => {
    expect(contractOperationCount).toBe(153);
    expect(contractOperationCount).toBe(operations.length);
    for (const op of operations) {
      // a concrete path for the template: every {param} becomes a plausible id
      const concrete = op.path.replace(/\{[^}]+\}/g, 'Thing:019542f5-b3e7-1d02-0000-000000000001');
      expect(findOperation(op.method, concrete), `${op.method} ${concrete}`).toEqual({
        operationId: op.operationId,
        path: op.path,
        method: op.method,
      });
    }
  });

  it('passes a PlatformConfig-shaped body for GET /config 200', () => {
    expect(() => assertFitsContract('GET', '/config', 200, platformConfig)).not.toThrow();
    expect(() => assertFitsSchema('PlatformConfig', platformConfig)).not.toThrow();
  });

  it('fails a body whose supportedCurrencies is not an array', () => {
    const bad = { ...platformConfig, supportedCurrencies: 'x' };
    expect(() => assertFitsContract('GET', '/config', 200, bad)).toThrow(/getPlatformConfig[\s\S]*\/supportedCurrencies/);
    expect(() => assertFitsSchema('PlatformConfig', bad)).toThrow(/\/supportedCurrencies must be array/);
  });

  it('fails nested violations and reports where (format, required field)', () => {
    const bad = {
      ...platformConfig,
      createdAt: 'yesterday',
      supportedCurrencies: [{ currencyCode: 'USD', minAmount: 1, maxAmount: 2, enabledTransactionTypes: [] }],
    };
    let message = '';
    try {
      assertFitsContract('GET', '/config', 200, bad);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/\/createdAt must match format "date-time"/);
    expect(message).toMatch(/\/supportedCurrencies\/0 must have required property 'requiredCounterpartyFields'/);
    expect(message).toMatch(/body: \{/);
  });

  it('routes static segments before parameters', () => {
    expect(findOperation('GET', '/customers/end-user-terms')?.path).toBe('/customers/end-user-terms');
    expect(findOperation('GET', '/customers/Customer:abc')).toMatchObject({
      path: '/customers/{customerId}',
      method: 'GET',
    });
    expect(findOperation('get', '/customers/Customer:abc?x=1')?.path).toBe('/customers/{customerId}');
    expect(findOperation('GET', '/customers/external-accounts')?.path).toBe('/customers/external-accounts');
    expect(findOperation('GET', '/no-such-thing')).toBeUndefined();
    expect(findOperation('GET', '/customers/a/b/c/d/e')).toBeUndefined();
  });

  it('passes a generic 501 body for any operation', () => {
    const body = { status: 501, code: 'NOT_IMPLEMENTED', message: 'Not implemented in the sandbox' };
    for (const op of operations) {
      const concrete = op.path.replace(/\{[^}]+\}/g, 'Thing:1');
      expect(() => assertFitsContract(op.method, concrete, 501, body), op.operationId).not.toThrow();
    }
    expect(() => assertFitsContract('GET', '/config', 501, { ...body, code: 'NOPE' })).toThrow(/Error501/);
  });

  it('fails an error body with an unknown code for POST /customers 400', () => {
    expect(() =>
      assertFitsContract('POST', '/customers', 400, { status: 400, code: 'NOT_A_CODE', message: 'bad' }),
    ).toThrow(/createCustomer[\s\S]*\/code must be equal to one of the allowed values/);
    expect(() =>
      assertFitsContract('POST', '/customers', 400, { status: 400, code: 'INVALID_INPUT', message: 'bad' }),
    ).not.toThrow();
  });

  it('fails an undeclared status', () => {
    expect(() => assertFitsContract('GET', '/config', 418, { status: 418 })).toThrow(/not declared/);
    // GET /config declares no 400, and 400 is not one of the generic statuses
    expect(() =>
      assertFitsContract('GET', '/config', 400, { status: 400, code: 'INVALID_INPUT', message: 'bad' }),
    ).toThrow(/status 400 is not declared/);
  });

  it('requires an empty body where the contract declares no JSON body', () => {
    const noContent = operations
      .map((op) => ({ op, status: 204 }))
      .find(({ op }) => {
        try {
          assertFitsContract(op.method, op.path, 204, undefined);
          return true;
        } catch {
          return false;
        }
      });
    expect(noContent, 'some operation answers 204').toBeDefined();
    const { op } = noContent!;
    expect(() => assertFitsContract(op.method, op.path, 204, '')).not.toThrow();
    expect(() => assertFitsContract(op.method, op.path, 204, { id: 'x' })).toThrow(/no JSON body/);
  });

  it('validates webhooks and named schemas, and rejects unknown names', () => {
    expect(() => assertFitsWebhook('incoming-payment', {})).toThrow(/webhook 'incoming-payment'/);
    expect(() => assertFitsWebhook('no-such-hook', {})).toThrow(/no webhook/);
    expect(() => assertFitsSchema('NoSuchSchema', {})).toThrow(/no component schema/);
  });

  it('compiles every response, webhook and component schema of the contract', () => {
    const { compiled, failures } = compileAllContractSchemas();
    expect(failures).toEqual([]);
    // 773 JSON responses + 13 webhook bodies + 638 component schemas at the time of writing
    expect(compiled).toBeGreaterThan(1000);
  });
});
