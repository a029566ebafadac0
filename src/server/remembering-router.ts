import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { BoundedCache } from '../core/bounded-cache.js';

/** Longest path whose match is remembered (longer ones are matched every time). */
const MAX_REMEMBERED_PATH = 512;

/** Matches remembered, the latest of each method and path. */
const REMEMBERED_MATCHES = 1024;

/**
 * Hono's own router (a RegExpRouter, else a TrieRouter: the contract's paths take the second),
 * remembering its latest matches by method and path. A match is a pure function of the two once
 * the routes are added, and a client calls the same few paths again and again: the trie's search
 * cost a request about 2 % of the sandbox's CPU (issue 26). A match is read, never changed, by
 * hono, so requests share it. Routes are all added before the first match, which hono's router
 * refuses them after.
 */
export class RememberingRouter<T> implements Router<T> {
  readonly name = 'RememberingRouter';
  private readonly router: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
  private readonly matches = new BoundedCache<Result<T>>(REMEMBERED_MATCHES);

  /** Adds a route; as with hono's router, only before the first match (nothing is remembered before it). */
  add(method: string, path: string, handler: T): void {
    this.router.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MAX_REMEMBERED_PATH) return this.router.match(method, path);
    return this.matches.get(`${method} ${path}`, () => this.router.match(method, path));
  }
}
