import { describe, expect, it } from 'vitest';
import { operations } from '../../src/generated/operations.js';
import { areas } from '../../src/index.js';
import { coverageOf } from '../../src/server/app.js';
import { contractOperationCount } from '../helpers/contract.js';
import { useSandbox } from '../helpers/sandbox.js';

const s = useSandbox();

describe('HTTP server', () => {
  it('routes every contract operation: implemented, or 501 naming its operationId', async () => {
    const { implemented, notImplemented } = coverageOf(areas);
    expect(implemented.length + notImplemented.length).toBe(contractOperationCount);
    expect(operations.length).toBe(contractOperationCount);
    for (const op of notImplemented) {
      const path = op.path.replace(/\{[^}]+\}/g, 'Sample:00000000-0000-7000-8000-000000000000');
      const res = await s.api.request(op.method, path, { body: op.method === 'GET' || op.method === 'DELETE' ? undefined : {} });
      expect(res.status, `${op.operationId}`).toBe(501);
      expect(res.body).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED', details: { operationId: op.operationId } });
      expect(res.body.message).toContain(op.operationId);
    }
    // The figure the issue asks for, in the test output.
    console.log(`contract coverage: ${implemented.length} of ${contractOperationCount} operations implemented, ${notImplemented.length} answer 501`);
  });

  it('serves the API under any prefix that ends in /2025-10-13', async () => {
    const auth = `Basic ${Buffer.from(`${s.sandbox.clientId}:${s.sandbox.clientSecret}`).toString('base64')}`;
    for (const prefix of ['', '/grid', '/a/b/c']) {
      const res = await fetch(`${s.sandbox.origin}${prefix}/2025-10-13/config`, { headers: { Authorization: auth } });
      expect(res.status).toBe(200);
    }
  });

  it('puts a time-ordered request id on every response', async () => {
    const first = await s.api.get('/config');
    const second = await s.api.get('/nope', { unchecked: true });
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    for (const id of ids) expect(id).toMatch(/^Request:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[0]! < ids[1]!).toBe(true);
  });
});

describe('authentication', () => {
  it('401 UNAUTHORIZED without credentials, with a wrong secret, an unknown id or a malformed header', async () => {
    const cases: Record<string, string>[] = [
      {},
      { Authorization: `Basic ${Buffer.from(`${s.sandbox.clientId}:wrong`).toString('base64')}` },
      { Authorization: `Basic ${Buffer.from('nobody:sandbox-client-secret').toString('base64')}` },
      { Authorization: 'Bearer abc' },
      { Authorization: 'Basic !!!' },
    ];
    for (const headers of cases) {
      const res = await s.api.get('/config', { auth: false, headers });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toContain('Basic');
    }
  });

  it('protects every contract operation and the control plane, but not health', async () => {
    for (const op of operations) {
      // The contract leaves device-code redemption unauthenticated (`security: []`): the code is the proof.
      if (op.security?.length === 0) continue;
      const path = op.path.replace(/\{[^}]+\}/g, 'X:1');
      const res = await s.api.request(op.method, path, { auth: false });
      expect(res.status, op.operationId).toBe(401);
    }
    expect((await s.api.post('/_sandbox/reset', undefined, { auth: false })).status).toBe(401);
    expect((await s.api.get('/_sandbox/clock', { auth: false })).status).toBe(401);
    const health = await s.api.get('/_sandbox/health', { auth: false });
    expect(health.status).toBe(200);
    // What it answers beyond status is tested in test/e2e/health.test.ts.
    expect(health.body).toMatchObject({ status: 'ok' });
  });
});

describe('bad input', () => {
  it('malformed JSON is 400 INVALID_INPUT', async () => {
    const res = await s.api.request('PATCH', '/config', { rawBody: '{"umaDomain": ', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.details.errors[0]).toMatchObject({ field: '(body)' });
  });

  it('a missing body is 400 INVALID_INPUT', async () => {
    const res = await s.api.request('PATCH', '/config');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
  });

  it('a wrong type deep in the body names the dot path', async () => {
    const res = await s.api.patch('/config', { embeddedWalletConfig: { otpLength: 'six' }, cardTokenization2faConfig: { email: { fromAddress: 'nope' } } });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'embeddedWalletConfig.otpLength', constraint: { type: 'number' } }),
        expect.objectContaining({ field: 'cardTokenization2faConfig.email.fromAddress', constraint: { format: 'email' } }),
      ]),
    );
  });

  it('an unknown path is 404 and a wrong method is 405 with Allow', async () => {
    const unknown = await s.api.get('/no-such-thing');
    expect(unknown.status).toBe(404);
    const outside = await s.api.get('/_sandbox/nothing-here');
    expect(outside.status).toBe(404);
    const wrong = await s.api.request('PUT', '/config', { body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.body.code).toBe('METHOD_NOT_ALLOWED');
    expect(wrong.headers.get('allow')).toBe('GET, PATCH');
  });
});
