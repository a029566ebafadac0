import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.js';
import { individual, useSandbox } from '../helpers/sandbox.js';

// Hardening found by fault tests (issue 10, section 6).
const s = useSandbox();

/** A second sandbox whose request log the tests read. */
const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
const capturing: Logger = {
  info: () => {},
  warn: (message, fields) => logged.push({ level: 'warn', message, fields }),
  error: () => {},
  request: () => {},
};
const withLog = useSandbox({ logger: capturing });

const MB = 1024 * 1024;
const fields = (body: { details?: { errors?: { field: string }[] } }) => (body.details?.errors ?? []).map((e) => e.field);

interface Upload {
  status: number;
  body: any;
  /** Bytes the client had written when the answer came (or the connection closed). */
  sentBytes: number;
  /** Growth of this process's heap plus array buffers over the upload (the sandbox runs in it). */
  peakGrowthBytes: number;
}

/** One chunk of a chunked request body, framed. */
const chunkOf = (bytes: number) => {
  const chunk = Buffer.alloc(bytes, 'a');
  return Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
};

const memory = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/**
 * Streams `totalBytes` to `url` as a chunked body (no Content-Length), as fast as the server
 * reads, sampling memory meanwhile; stops writing once the answer arrives. Over a plain socket,
 * which hands over every byte received as it comes (node's HTTP client failed a write with EPIPE
 * before handing over the answer it had). The sandbox's close after an early answer lingers, so a
 * client still writing is not reset before it reads the answer (the lingering-close test below).
 */
function streamUpload(url: string, totalBytes: number, headers: Record<string, string> = {}): Promise<Upload> {
  const chunk = 256 * 1024;
  const framed = chunkOf(chunk);
  const target = new URL(url);
  const baseline = memory();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memory());
  }, 5);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let received = Buffer.alloc(0);
    let settled = false;
    /** The answer once the whole of it is in (status, headers, a Content-Length or chunked body). */
    const answer = (): { status: number; body: unknown } | undefined => {
      const head = received.indexOf('\r\n\r\n');
      if (head < 0) return undefined;
      const lines = received.subarray(0, head).toString('latin1').split('\r\n');
      const status = Number(lines[0]!.split(' ')[1]);
      const header = (name: string) => lines.find((line) => line.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();
      let rest = received.subarray(head + 4);
      let text: string;
      if (header('transfer-encoding')?.toLowerCase() === 'chunked') {
        const parts: Buffer[] = [];
        for (;;) {
          const eol = rest.indexOf('\r\n');
          if (eol < 0) return undefined;
          const size = parseInt(rest.subarray(0, eol).toString('latin1'), 16);
          if (rest.length < eol + 2 + size + 2) return undefined;
          if (size === 0) break;
          parts.push(rest.subarray(eol + 2, eol + 2 + size));
          rest = rest.subarray(eol + 2 + size + 2);
        }
        text = Buffer.concat(parts).toString('utf8');
      } else {
        const length = Number(header('content-length') ?? NaN);
        if (!(rest.length >= length)) return undefined;
        text = rest.subarray(0, length).toString('utf8');
      }
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status, body };
    };
    const finish = (error?: Error) => {
      if (settled) return;
      const got = answer();
      if (!got && !error) return;
      settled = true;
      clearInterval(sampler);
      peak = Math.max(peak, memory());
      socket.destroy();
      if (got) resolve({ ...got, sentBytes: sent, peakGrowthBytes: peak - baseline });
      else reject(error);
    };
    const socket = connect(Number(target.port), target.hostname, () => {
      const lines = [`POST ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`, 'Transfer-Encoding: chunked', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      pump();
    });
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data]);
      finish();
    });
    // A write refused because the server closed after answering: the answer decides.
    socket.on('error', (error) => setImmediate(() => finish(error)));
    socket.on('close', () => finish(new Error(`the connection closed without a whole answer (${received.length} bytes received)`)));
    const pump = () => {
      while (!settled && received.length === 0 && sent < totalBytes) {
        sent += chunk;
        if (!socket.write(framed)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!settled && received.length === 0) socket.write('0\r\n\r\n');
    };
  });
}

describe('request bodies are bounded before they are read', () => {
  // Far beyond every limit: what matters is that neither time nor memory follows it.
  const OFFERED = 200 * MB;

  it('hosted ownership form: a 200 MB chunked body without credentials is refused (413) with memory flat', async () => {
    const origin = s.sandbox.origin;
    const upload = await streamUpload(`${origin}/hosted/ownership/ExternalAccount:x/token`, OFFERED, { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(upload.status).toBe(413);
    expect(upload.body).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(upload.sentBytes).toBeLessThan(OFFERED);
    expect(upload.peakGrowthBytes).toBeLessThan(16 * MB);
    console.log(`hosted ownership: refused after ${(upload.sentBytes / MB).toFixed(1)} MB written, peak growth ${(upload.peakGrowthBytes / MB).toFixed(1)} MB`);
  });

  it('POST /customers/bulk/csv: a 200 MB chunked CSV is refused (413), not accepted as a job, with memory flat', async () => {
    const auth = `Basic ${Buffer.from(`${s.api.clientId}:${s.api.clientSecret}`).toString('base64')}`;
    const upload = await streamUpload(`${s.sandbox.baseUrl}/customers/bulk/csv`, OFFERED, { Authorization: auth, 'Content-Type': 'multipart/form-data; boundary=x' });
    expect(upload.status).toBe(413);
    expect(upload.body.message).toContain('10 MB');
    expect(upload.sentBytes).toBeLessThan(OFFERED);
    expect(upload.peakGrowthBytes).toBeLessThan(48 * MB);
    console.log(`bulk CSV: refused after ${(upload.sentBytes / MB).toFixed(1)} MB written, peak growth ${(upload.peakGrowthBytes / MB).toFixed(1)} MB`);
    // a declared Content-Length over the limit is refused before anything is read
    const declared = await fetch(`${s.sandbox.baseUrl}/customers/bulk/csv`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(11 * MB) },
      body: Buffer.alloc(11 * MB),
    });
    expect(declared.status).toBe(413);
  });

  it('POST /documents: a 200 MB chunked upload is the contract\'s 400 naming the file, with memory flat', async () => {
    const auth = `Basic ${Buffer.from(`${s.api.clientId}:${s.api.clientSecret}`).toString('base64')}`;
    const upload = await streamUpload(`${s.sandbox.baseUrl}/documents`, OFFERED, { Authorization: auth, 'Content-Type': 'multipart/form-data; boundary=x' });
    expect(upload.status).toBe(400);
    expect(upload.body.code).toBe('INVALID_INPUT');
    expect(upload.body.details.errors).toEqual([{ field: 'file', constraint: { maxLength: 10 * MB }, message: expect.stringContaining('10 MB') }]);
    expect(upload.sentBytes).toBeLessThan(OFFERED);
    expect(upload.peakGrowthBytes).toBeLessThan(48 * MB);
    console.log(`documents: refused after ${(upload.sentBytes / MB).toFixed(1)} MB written, peak growth ${(upload.peakGrowthBytes / MB).toFixed(1)} MB`);
  });

  it('an answer given while the upload streams is followed by a lingering close: the client writes on without a reset, then the connection goes', async () => {
    // Without credentials the answer (401) comes before the body is read. The client keeps its
    // side open after the sandbox's FIN, as one still uploading does.
    const port = Number(new URL(s.sandbox.origin).port);
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const errors: Error[] = [];
    socket.on('error', (error) => errors.push(error));
    let received = '';
    let ended = false;
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    socket.on('end', () => (ended = true));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const framed = chunkOf(64 * 1024);
    const upload = 'POST /2025-10-13/documents HTTP/1.1\r\nHost: sandbox\r\nTransfer-Encoding: chunked\r\nContent-Type: multipart/form-data; boundary=x\r\n\r\n';
    const write = (data: Buffer | string) =>
      new Promise<void>((resolve) =>
        socket.write(data, (error) => {
          if (error) errors.push(error);
          resolve();
        }),
      );
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    await write(upload);
    await write(framed);
    const deadline = Date.now() + 10_000;
    while (!(/\r\n\r\n[\s\S]*UNAUTHORIZED/.test(received) && ended) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toMatch(/^HTTP\/1\.1 401 [\s\S]*connection: close/i);
    expect(ended).toBe(true);
    // The sandbox ended its side; had it destroyed the socket at once, these writes would fail
    // (EPIPE), and a client's answer could be lost to the reset.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let i = 0; i < 32; i += 1) await write(framed);
    await write('0\r\n\r\n');
    expect(errors).toEqual([]);
    socket.end();
    await closed;
    expect(errors).toEqual([]);

    // A client that never stops is cut off once the linger's bytes are read (16 MB), not at 200 MB.
    const endless = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    endless.on('error', () => {});
    await new Promise<void>((resolve) => endless.once('connect', () => resolve()));
    endless.write(upload);
    let sent = 0;
    let failed = false;
    while (!failed && sent < 200 * MB) {
      sent += framed.length;
      failed = await new Promise<boolean>((resolve) => endless.write(framed, (error) => resolve(Boolean(error))));
    }
    endless.destroy();
    expect(failed).toBe(true);
    expect(sent).toBeLessThan(48 * MB);
  });

  it('a JSON body over 1 MB is refused whether declared or chunked; small ones pass', async () => {
    const auth = `Basic ${Buffer.from(`${s.api.clientId}:${s.api.clientSecret}`).toString('base64')}`;
    const upload = await streamUpload(`${s.sandbox.baseUrl}/customers`, 8 * MB, { Authorization: auth, 'Content-Type': 'application/json' });
    expect(upload.status).toBe(400);
    expect(upload.body.code).toBe('INVALID_INPUT');
    const ok = await s.api.post('/customers', individual(['USD']));
    expect(ok.status).toBe(201);
  });
});

describe('strings are bounded and well-formed', () => {
  const person = (fullName: string) => ({ beneficiaryType: 'INDIVIDUAL', fullName, countryOfResidence: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } });
  const usdAccount = (customerId: string, fullName: string) => ({
    customerId,
    currency: 'USD',
    accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', beneficiary: person(fullName) },
  });

  it('a name has the same maximum everywhere: a 100,000-character beneficiary.fullName is refused like a customer fullName', async () => {
    const api = await s.api.newPlatform();
    const long = `Jane ${'x'.repeat(100_000)}`;
    const customer = await api.post('/customers', individual(['USD'], { fullName: long }));
    expect(customer.status).toBe(400);
    expect(fields(customer.body)).toEqual(['fullName']);
    const customerId = (await api.post('/customers', individual(['USD']))).body.id;
    const beneficiary = await api.post('/customers/external-accounts', usdAccount(customerId, long));
    expect(beneficiary.status).toBe(400);
    expect(fields(beneficiary.body)).toEqual(['accountInfo.beneficiary.fullName']);
    expect(beneficiary.body.details.errors[0].constraint).toEqual({ maxLength: 255 });
    // 255 characters is fine in both places
    const edge = `Jane ${'x'.repeat(250)}`;
    expect((await api.post('/customers/external-accounts', usdAccount(customerId, edge))).status).toBe(201);
  });

  it('any other string without a contract limit is bounded by the documented sandbox maximum (32,768)', async () => {
    const api = await s.api.newPlatform();
    const customerId = (await api.post('/customers', individual(['USD']))).body.id;
    const res = await api.patch(`/customers/${customerId}`, { customerType: 'INDIVIDUAL', umaAddress: `$${'a'.repeat(40_000)}@example.com` });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['umaAddress']);
  });

  it('NUL characters and unpaired surrogates are 400 INVALID_INPUT naming the field; paired surrogates pass', async () => {
    const api = await s.api.newPlatform();
    const nul = await api.post('/customers', individual(['USD'], { fullName: 'Jane\u0000 Smith' }));
    expect(nul.status).toBe(400);
    expect(nul.body.code).toBe('INVALID_INPUT');
    expect(fields(nul.body)).toEqual(['fullName']);
    // an unpaired surrogate can only be sent as a JSON escape
    const raw = JSON.stringify(individual(['USD'], { address: { line1: 'X', postalCode: '94105', country: 'US' } })).replace('"line1":"X"', '"line1":"\\ud800 Main"');
    const lone = await api.post('/customers', undefined, { rawBody: raw, headers: { 'Content-Type': 'application/json' } });
    expect(lone.status).toBe(400);
    expect(fields(lone.body)).toEqual(['address.line1']);
    const lowAlone = await api.post('/customers', undefined, { rawBody: raw.replace('\\ud800', '\\udc00'), headers: { 'Content-Type': 'application/json' } });
    expect(fields(lowAlone.body)).toEqual(['address.line1']);
    const emoji = await api.post('/customers', individual(['USD'], { fullName: 'Jane Smith \u{1F600}' }));
    expect(emoji.status).toBe(201);
    expect(emoji.body.fullName).toBe('Jane Smith \u{1F600}');
  });
});

describe('unknown body fields: accepted, as the service does, and reported', () => {
  it('a misspelt field is named in the Service-Sandbox-Warning header and in the request log', async () => {
    const api = await withLog.api.newPlatform();
    const res = await api.patch('/config', { webhookEndpont: 'https://example.com/hooks', umaDomain: 'example.com' });
    expect(res.status).toBe(200);
    expect(res.headers.get('service-sandbox-warning')).toBe('Unknown field webhookEndpont was ignored');
    expect(res.body.webhookEndpoint).toBeUndefined();
    expect(logged.some((line) => line.level === 'warn' && line.message.includes('webhookEndpont') && typeof line.fields?.requestId === 'string')).toBe(true);
    // nested and in external accounts' accountInfo too, each field named
    const customerId = (await api.post('/customers', individual(['USD']))).body.id;
    const nested = await api.post('/customers/external-accounts', {
      customerId,
      currency: 'USD',
      colour: 'red',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '987654321', routingNumber: '021000021', routingNumbr: 'x', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', nickname: 'J' } },
    });
    expect(nested.status, JSON.stringify(nested.body)).toBe(201);
    const warning = nested.headers.get('service-sandbox-warning') ?? '';
    for (const field of ['colour', 'accountInfo.routingNumbr', 'accountInfo.beneficiary.nickname']) expect(warning).toContain(field);
    // a request with nothing unknown carries no warning
    expect((await api.get('/config')).headers.get('service-sandbox-warning')).toBeNull();
    expect((await api.patch('/config', { umaDomain: 'example.org' })).headers.get('service-sandbox-warning')).toBeNull();
  });

  it('requests served at once each get their own warnings, never another\'s (two platforms, bodies and query strings)', async () => {
    const [a, b] = [await withLog.api.newPlatform(), await withLog.api.newPlatform()];
    const [customerA, customerB] = [(await a.post('/customers', individual(['USD']))).body.id, (await b.post('/customers', individual(['USD']))).body.id];
    const account = (customerId: string, i: number, extra: Record<string, unknown>) => ({
      customerId,
      currency: 'USD',
      ...extra,
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: `${String(987654000 + i)}`, routingNumber: '021000021', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith' } },
    });
    const requests = Array.from({ length: 40 }, (_, i) => {
      const warned = i % 2 === 0;
      const api = i % 4 < 2 ? a : b;
      const customerId = api === a ? customerA : customerB;
      const sent =
        i % 3 === 0
          ? api.post('/customers/external-accounts', account(customerId, i, warned ? { [`field${i}`]: 1 } : {}))
          : i % 3 === 1
            ? api.get(`/customers?limit=5${warned ? `&param${i}=1` : ''}`)
            : api.patch('/config', warned ? { [`field${i}`]: 1 } : {});
      return sent.then((res) => ({ i, warned, status: res.status, warning: res.headers.get('service-sandbox-warning') }));
    });
    for (const r of await Promise.all(requests)) {
      expect(r.status, `request ${r.i}`).toBeLessThan(300);
      if (r.warned) expect(r.warning, `request ${r.i}`).toMatch(new RegExp(`^Unknown (field|query parameter) (field|param)${r.i} was ignored$`));
      else expect(r.warning, `request ${r.i}`).toBeNull();
    }
  });
});
