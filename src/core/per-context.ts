/**
 * One instance per sandbox context (a repo with its prepared statements, a service), made on
 * first use: `const repoOf = perContext((ctx) => new LedgerRepo(ctx.db));`.
 */
export function perContext<C extends object, T>(make: (ctx: C) => T): (ctx: C) => T {
  const instances = new WeakMap<C, T>();
  return (ctx) => {
    let instance = instances.get(ctx);
    if (instance === undefined) {
      instance = make(ctx);
      instances.set(ctx, instance);
    }
    return instance;
  };
}
