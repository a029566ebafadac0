import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';

const s = useSandbox();

type Row = { bankName: string; displayName: string; country: string; currency: string };

describe('discoveries', () => {
  it('lists the institutions of a corridor by country and currency', async () => {
    const res = await s.api.get('/discoveries?country=PH&currency=PHP');
    expect(res.status).toBe(200);
    const names = res.body.data.map((row: Row) => row.bankName);
    expect(names).toEqual(expect.arrayContaining(['BDO Unibank', 'BPI']));
    for (const row of res.body.data as Row[]) expect(row).toMatchObject({ country: 'PH', currency: 'PHP' });
    expect(res.body.data.find((row: Row) => row.bankName === 'BPI').displayName).toBe('Bank of the Philippine Islands');
  });

  it('filters by currency alone across countries, and answers everything without filters', async () => {
    const xof = await s.api.get('/discoveries?currency=xof');
    expect(new Set(xof.body.data.map((row: Row) => row.country))).toEqual(new Set(['BJ', 'CI', 'SN']));
    const all = await s.api.get('/discoveries');
    expect(all.body.data.length).toBeGreaterThan(xof.body.data.length);
    expect(new Set(all.body.data.map((row: Row) => row.country)).has('KE')).toBe(true);
  });

  it('has nothing for corridors that are not served', async () => {
    for (const country of ['CA', 'HK', 'KR', 'JP']) expect((await s.api.get(`/discoveries?country=${country}`)).body.data).toEqual([]);
  });

  it('rejects malformed filters with field errors', async () => {
    const res = await s.api.get('/discoveries?country=Philippines&currency=PESO');
    expect(res.status).toBe(400);
    expect(res.body.details.errors.map((e: { field: string }) => e.field)).toEqual(['country', 'currency']);
  });

  it('one table, two uses: every listed wallet is accepted as the provider of its corridor', async () => {
    const api = await s.api.newPlatform();
    const wallets = (await api.get('/discoveries?country=TZ')).body.data as Row[];
    expect(wallets.length).toBeGreaterThan(1);
    for (const [i, wallet] of wallets.entries()) {
      const res = await api.post('/platform/external-accounts', {
        currency: 'TZS',
        accountInfo: { accountType: 'TZS_ACCOUNT', phoneNumber: `+25571234500${i}`, provider: wallet.bankName, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Asha Mwangi' } },
      });
      expect(res.status, wallet.bankName).toBe(201);
    }
  });
});
