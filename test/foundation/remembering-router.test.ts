import { describe, expect, it } from 'vitest';
import { SmartRouter } from 'hono/router/smart-router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { TrieRouter } from 'hono/router/trie-router';
import { RememberingRouter } from '../../src/server/remembering-router.js';
import { operations, toHonoPath } from '../../src/generated/operations.js';

// The server's router (src/server/remembering-router.ts) remembers hono's matches by method and
// path: every answer must be the one hono's own router gives, however many paths it has seen.
const ROUTES: [string, string][] = [
  ['ALL', '*'],
  ['POST', '/2025-10-13/customers'],
  ['GET', '/2025-10-13/customers'],
  ['GET', '/2025-10-13/customers/end-user-terms'],
  ['GET', '/2025-10-13/customers/:customerId'],
  ['PATCH', '/2025-10-13/customers/:customerId'],
  ['ALL', '/2025-10-13/customers/:customerId'],
  ['DELETE', '/2025-10-13/sca/factors/:credentialId'],
  ['GET', '/2025-10-13/sca/factors'],
];

function both() {
  const remembering = new RememberingRouter<string>();
  const plain = new SmartRouter<string>({ routers: [new RegExpRouter<string>(), new TrieRouter<string>()] });
  for (const [method, path] of ROUTES) {
    remembering.add(method, path, `${method} ${path}`);
    plain.add(method, path, `${method} ${path}`);
  }
  return { remembering, plain };
}

/** A match as handlers with their parameters' values (param stashes resolved). */
function resolved(result: ReturnType<RememberingRouter<string>['match']>) {
  const [handlers, stash] = result as [[string, Record<string, number | string>][], string[] | undefined];
  return handlers.map(([handler, params]) => [handler, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, stash ? stash[v as number] : v]))]);
}

describe('RememberingRouter', () => {
  it("answers every method and path as hono's router does, the first time and again", () => {
    const { remembering, plain } = both();
    const asked: [string, string][] = [];
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']) {
      for (const path of ['/2025-10-13/customers', '/2025-10-13/customers/end-user-terms', '/2025-10-13/customers/Customer:1', '/2025-10-13/customers/Customer%3A2', '/2025-10-13/sca/factors', '/2025-10-13/sca/factors/abc', '/nowhere', '/']) {
        asked.push([method, path]);
      }
    }
    for (const round of [1, 2]) {
      for (const [method, path] of asked) expect(resolved(remembering.match(method, path)), `${round} ${method} ${path}`).toEqual(resolved(plain.match(method, path)));
    }
  });

  it('stays right past the number of matches it remembers, and for paths too long to remember', () => {
    const { remembering, plain } = both();
    for (let i = 0; i < 3_000; i += 1) {
      const path = `/2025-10-13/customers/Customer:${i % 1_500}`;
      expect(resolved(remembering.match('GET', path))).toEqual(resolved(plain.match('GET', path)));
    }
    const long = `/2025-10-13/customers/${'x'.repeat(600)}`;
    expect(resolved(remembering.match('PATCH', long))).toEqual(resolved(plain.match('PATCH', long)));
    expect(resolved(remembering.match('PATCH', long))[1]).toEqual(['PATCH /2025-10-13/customers/:customerId', { customerId: 'x'.repeat(600) }]);
  });

  it('takes routes until its first match only, as hono\'s router does: nothing remembered can go stale', () => {
    const remembering = new RememberingRouter<string>();
    remembering.add('GET', '/a/:id', 'first');
    remembering.add('GET', '/a/:id', 'second');
    expect(resolved(remembering.match('GET', '/a/1'))).toEqual([['first', { id: '1' }], ['second', { id: '1' }]]);
    expect(() => remembering.add('GET', '/b', 'late')).toThrow(/already built/);
    expect(resolved(remembering.match('GET', '/b'))).toEqual([]);
  });
  // Paths with parameters are remembered by shape (a segment no route names literally stands for
  // any value there): each must still match as hono's router matches it, values and all.
  it('matches paths with parameters by shape as hono does, over every contract path and many ids', () => {
    const remembering = new RememberingRouter<string>();
    const plain = new SmartRouter<string>({ routers: [new RegExpRouter<string>(), new TrieRouter<string>()] });
    const routes: [string, string][] = [['ALL', '*'], ...operations.map((op): [string, string] => [op.method, `/2025-10-13${toHonoPath(op.path)}`]), ['ALL', '/2025-10-13/customers/:customerId']];
    for (const [method, path] of routes) {
      remembering.add(method, path, `${method} ${path}`);
      plain.add(method, path, `${method} ${path}`);
    }
    const values = (round: number) => [`Customer:${round}`, `Quote%3A${round}`, 'end-user-terms', 'execute', 'customers', `x${round}`];
    for (let round = 0; round < 40; round += 1) {
      for (const op of operations) {
        for (const value of values(round)) {
          const path = `/2025-10-13${op.path.replace(/\{[^}]+\}/g, () => value)}`;
          for (const method of [op.method, 'GET', 'DELETE']) {
            expect(resolved(remembering.match(method, path)), `${method} ${path}`).toEqual(resolved(plain.match(method, path)));
          }
        }
      }
    }
  });

  it('a value in two segments, empty segments and prefix wildcards are matched as they are', () => {
    const routes: [string, string][] = [['GET', '/a/:x/b/:y'], ['GET', '/a/:x'], ['GET', '/files/:name']];
    const pair = (extra: [string, string][] = []) => {
      const remembering = new RememberingRouter<string>();
      const plain = new SmartRouter<string>({ routers: [new RegExpRouter<string>(), new TrieRouter<string>()] });
      for (const [method, path] of [...routes, ...extra]) {
        remembering.add(method, path, `${method} ${path}`);
        plain.add(method, path, `${method} ${path}`);
      }
      return { remembering, plain };
    };
    const paths = ['/a/v/b/v', '/a/p/b/q', '/a/v/b/v', '/a/q/b/p', '/a/v/', '/a//b/v', '/a/v', '/files/abc', '/files/xyz', '/files/abd', '/files/', 'a/v'];
    for (const extra of [[], [['GET', '/files/ab*']] as [string, string][]]) {
      const { remembering, plain } = pair(extra);
      for (const round of [1, 2]) for (const path of paths) expect(resolved(remembering.match('GET', path)), `${round} ${path} ${extra.length}`).toEqual(resolved(plain.match('GET', path)));
    }
  });
});
