import type { Params, Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { BoundedCache } from '../core/bounded-cache.js';

/** Longest path whose match is remembered (longer ones are matched every time). */
const MAX_REMEMBERED_PATH = 512;

/** Matches remembered, the latest of each method and path without parameters. */
const REMEMBERED_MATCHES = 1024;

/** Shapes remembered (paths with parameters), the latest of each method and shape. */
const REMEMBERED_SHAPES = 1024;

/** A match of a path with parameters: each handler with the position of each of its parameters among the path's segments. */
type Template<T> = [handler: T, slots: [name: string, segment: number][]][];

/**
 * Hono's own router (a RegExpRouter, else a TrieRouter: the contract's paths take the second),
 * remembering its matches. A match is a pure function of the method and path once the routes
 * are added, and a client calls the same few paths again and again: the trie's search cost a
 * request about 2 % of the sandbox's CPU (issue 26). A path without parameters is remembered
 * whole (hono only reads a match, so requests share it). A path with them (`/quotes/{id}/execute`,
 * a new id each time) is remembered by its shape: each segment no route names literally can only
 * be a parameter's value, so every path of that shape matches the same routes with the same
 * segments as parameters; the match is made again from the template with this path's segments.
 * Routes are all added before the first match, which hono's router refuses them after.
 */
export class RememberingRouter<T> implements Router<T> {
  readonly name = 'RememberingRouter';
  private readonly router: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
  private readonly matches = new BoundedCache<Result<T>>(REMEMBERED_MATCHES);
  private readonly shapes = new BoundedCache<Template<T>>(REMEMBERED_SHAPES);
  /** Every segment some route names literally (`*` included). */
  private readonly literals = new Set<string>();
  /**
   * Whether shapes stand for their paths: not once a route has a segment whose match depends on
   * its text beyond being a literal or any text (a regular expression, an optional parameter, a
   * prefix wildcard such as `file*`).
   */
  private shapesHold = true;

  /** Adds a route; as with hono's router, only before the first match (nothing is remembered before it). */
  add(method: string, path: string, handler: T): void {
    this.router.add(method, path, handler);
    for (const segment of path.split('/')) {
      if (segment.startsWith(':')) {
        if (!/^:\w+$/.test(segment)) this.shapesHold = false;
      } else {
        if (segment.includes('*') && segment !== '*') this.shapesHold = false;
        this.literals.add(segment);
      }
    }
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MAX_REMEMBERED_PATH) return this.router.match(method, path);
    const key = `${method} ${path}`;
    const remembered = this.matches.peek(key);
    if (remembered !== undefined) return remembered;
    const segments = this.shapesHold ? this.variableSegments(path) : undefined;
    if (segments === undefined) return this.matches.get(key, () => this.router.match(method, path));
    const shape = `${method} ${segments.map((segment) => (this.literals.has(segment) ? segment : '\u0000')).join('/')}`;
    const template = this.shapes.peek(shape);
    if (template) return [template.map(([handler, slots]) => [handler, paramsOf(slots, segments)])];
    const result = this.router.match(method, path);
    const made = templateOf(result, segments);
    if (made) this.shapes.set(shape, made);
    return result;
  }

  /** The segments of a path with at least one that no route names literally; undefined for one without (or with an empty segment). */
  private variableSegments(path: string): string[] | undefined {
    const segments = path.split('/');
    let variable = false;
    for (let i = 1; i < segments.length; i += 1) {
      const segment = segments[i]!;
      if (segment === '') return undefined;
      if (!this.literals.has(segment)) variable = true;
    }
    return variable && segments[0] === '' ? segments : undefined;
  }
}

function paramsOf(slots: [name: string, segment: number][], segments: readonly string[]): Params {
  const params: Params = {};
  for (const [name, index] of slots) params[name] = segments[index]!;
  return params;
}

/**
 * The template of a trie match: each parameter's value found as exactly one of the path's
 * segments (the same position in every path of the shape). Null when it cannot be (a match in
 * the RegExpRouter's form, a value found twice or not at all): the path is matched as it is,
 * and the next of its shape tries again.
 */
function templateOf<T>(result: Result<T>, segments: readonly string[]): Template<T> | null {
  if (result.length !== 1) return null;
  const template: Template<T> = [];
  for (const [handler, params] of result[0]) {
    const slots: [string, number][] = [];
    for (const [name, value] of Object.entries(params)) {
      let found = -1;
      for (let i = 1; i < segments.length; i += 1) {
        if (segments[i] !== value) continue;
        if (found >= 0) return null;
        found = i;
      }
      if (found < 0) return null;
      slots.push([name, found]);
    }
    template.push([handler, slots]);
  }
  return template;
}
