// SCA login ceremonies (SMS_OTP start + complete) at 10 connections with a file database: one
// German customer with a verified phone per ceremony in flight (taken from a free pool and given
// back after the complete), so no login supersedes another's. Forty of them: a load stopped
// mid-ceremony (the warm-up) keeps up to ten out of the pool.
import { api, AUTH, cpuRow } from '../run.mjs';

export async function run({ baseUrl, load }) {
  const customers = [];
  for (let i = 0; i < 40; i += 1) {
    const customer = await api(baseUrl, 'POST', '/customers', {
      customerType: 'INDIVIDUAL',
      fullName: 'Bench Kunde',
      region: 'DE',
      phoneNumber: `+49151000000${String(i).padStart(2, '0')}`,
      currencies: ['EUR'],
    });
    // 204 without a body, so not through api().
    await fetch(`${baseUrl}/customers/${encodeURIComponent(customer.id)}/verify-phone`, { method: 'POST', headers: { Authorization: AUTH } });
    await api(baseUrl, 'POST', `/customers/${encodeURIComponent(customer.id)}/verify-phone/confirm`, { code: '123456' });
    customers.push(customer.id);
  }
  const base = new URL(baseUrl).pathname;
  const free = [...customers];
  const customerOf = (context) => (context.customerId ??= free.shift());
  const r = await load({
    url: baseUrl,
    connections: 10,
    requests: [
      {
        method: 'POST',
        setupRequest: (req, context) => ({ ...req, path: `${base}/sca/login/start?customerId=${encodeURIComponent(customerOf(context))}`, body: JSON.stringify({ factor: 'SMS_OTP' }) }),
        onResponse: (status, body, context) => {
          context.challengeId = JSON.parse(body).challengeId;
        },
      },
      {
        method: 'POST',
        setupRequest: (req, context) => ({
          ...req,
          path: `${base}/sca/login/complete?customerId=${encodeURIComponent(customerOf(context))}`,
          body: JSON.stringify({ factor: 'SMS_OTP', challengeId: context.challengeId, code: '123456', endUserIpAddress: '203.0.113.42' }),
        }),
        onResponse: (status, body, context) => {
          free.push(context.customerId);
          context.customerId = undefined;
        },
      },
    ],
  });
  if (r.non2xx || r.errors) throw new Error(`SCA login: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const logins = r.rps / 2;
  return [
    { name: 'SCA login (start + complete), 10 connections', value: logins, unit: 'logins/s', target: '>= 400 logins/s', ok: logins >= 400 },
    { name: 'SCA login request p99', value: r.p99, unit: 'ms', target: '<= 30 ms', ok: r.p99 <= 30 },
    cpuRow('SCA login start / complete', r),
  ];
}
