import { describe, expect, it } from 'vitest';
import { allMigrations } from '../../src/index.js';
import { migrate, openDatabase } from '../../src/store/db.js';
import { ScaRepo } from '../../src/resources/sca/repo.js';

// sca-perf-001 keeps challenges and login states in their primary keys and indexes only OPEN
// challenges: a database made before it keeps every row, and its open challenges stay answerable.
describe('SCA migration sca-perf-001 on an existing database', () => {
  it('keeps challenges and login states, indexes the open challenges only, and answers them', () => {
    const db = openDatabase(':memory:');
    migrate(db, allMigrations.filter((m) => m.id !== 'sca-perf-001'));
    const insert = db.prepare(
      `INSERT INTO sca_challenges (id, platform_id, customer_id, kind, subject_id, factor, available_factors, purpose, remaining_steps, passkey_challenge, status, expires_at, last_sent_at, failed_attempts, last_failed_at, created_at)
       VALUES (?, ?, ?, ?, ?, 'SMS_OTP', '["SMS_OTP"]', NULL, '[]', NULL, ?, 9000, 1000, 2, 1500, '2026-01-01T00:00:00.000Z')`,
    );
    insert.run('ScaChallenge:1', 'P1', 'Customer:a', 'LOGIN', 'Customer:a', 'DONE');
    insert.run('ScaChallenge:2', 'P1', 'Customer:a', 'LOGIN', 'Customer:a', 'OPEN');
    insert.run('ScaChallenge:3', 'P1', 'Customer:a', 'QUOTE', 'Quote:q', 'SUPERSEDED');
    insert.run('ScaChallenge:4', 'P2', 'Customer:b', 'LOGIN', 'Customer:b', 'OPEN');
    db.prepare("INSERT INTO sca_customers (platform_id, customer_id, failed_attempts, locked_until, suspended, session_expires_at, step_up) VALUES ('P1', 'Customer:a', 3, 7000, 0, NULL, 1)").run();
    const before = db.prepare('SELECT * FROM sca_challenges ORDER BY id').all();

    expect(migrate(db, allMigrations)).toEqual(['sca-perf-001']);
    expect(db.prepare('SELECT * FROM sca_challenges ORDER BY id').all()).toEqual(before);
    const open = db.prepare("SELECT id FROM sca_challenges INDEXED BY sca_challenges_open WHERE status = 'OPEN' ORDER BY id").pluck().all();
    expect(open).toEqual(['ScaChallenge:2', 'ScaChallenge:4']);

    const repo = new ScaRepo(db);
    const plan = (sql: string) => db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('Customer:a', 'LOGIN', 'P1').map((r) => (r as { detail: string }).detail);
    expect(plan("SELECT * FROM sca_challenges WHERE subject_id = ? AND kind = ? AND status = 'OPEN' AND platform_id = ? ORDER BY id DESC LIMIT 1")).toEqual([
      'SEARCH sca_challenges USING INDEX sca_challenges_open (subject_id=? AND kind=?)',
    ]);
    // Another platform's subject is not found by this one.
    expect(repo.openChallenge('P2', 'Customer:a', 'LOGIN')).toBeUndefined();
    expect(repo.openChallenge('P1', 'Customer:a', 'LOGIN')).toMatchObject({ id: 'ScaChallenge:2', failed_attempts: 2, last_failed_at: 1500 });
    expect(repo.closeChallenge('ScaChallenge:2')).toBe(true);
    expect(repo.closeChallenge('ScaChallenge:2')).toBe(false);
    expect(repo.openChallenge('P1', 'Customer:a', 'LOGIN')).toBeUndefined();
    repo.supersede('P2', 'Customer:b', 'LOGIN');
    expect(repo.challenge('P2', 'ScaChallenge:4')?.status).toBe('SUPERSEDED');
    expect(db.prepare("SELECT count(*) FROM sca_challenges INDEXED BY sca_challenges_open WHERE status = 'OPEN'").pluck().get()).toBe(0);

    // A session opened over a kept state leaves its lockout and step-up as they were; a new customer gets the defaults.
    repo.setSession('P1', 'Customer:a', 123456);
    repo.setSession('P2', 'Customer:b', 654321);
    expect(repo.state('P1', 'Customer:a')).toEqual({ platform_id: 'P1', customer_id: 'Customer:a', failed_attempts: 3, locked_until: 7000, suspended: 0, session_expires_at: 123456, step_up: 1 });
    expect(repo.state('P2', 'Customer:b')).toEqual({ platform_id: 'P2', customer_id: 'Customer:b', failed_attempts: 0, locked_until: null, suspended: 0, session_expires_at: 654321, step_up: 0 });
    db.close();
  });
});
