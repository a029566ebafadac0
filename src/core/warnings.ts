import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Sandbox warnings of the request being served: things the service accepts silently that a
 * developer most likely wants to know (an ignored unknown field, a wallet address whose
 * checksum fails). The server sends them in the `Service-Sandbox-Warning` header and the
 * request log; they never change the answer.
 */
export const WARNING_HEADER = 'Service-Sandbox-Warning';

const current = new AsyncLocalStorage<string[]>();

/** Runs `fn` (the handling of one request) collecting its warnings. */
export function collectingWarnings<T>(warnings: string[], fn: () => T): T {
  return current.run(warnings, fn);
}

/** Records a warning for the request being served (outside a request: dropped). Keep it ASCII, one line. */
export function sandboxWarning(message: string): void {
  const warnings = current.getStore();
  if (warnings && !warnings.includes(message)) warnings.push(message);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

/**
 * Dot paths of the keys a request had and its validated form dropped: the unknown fields the
 * service ignores (as the sandbox does) and a developer most likely misspelt.
 */
export function ignoredFields(input: unknown, output: unknown, prefix = ''): string[] {
  const out: string[] = [];
  if (isPlainObject(input) && isPlainObject(output)) {
    for (const [key, value] of Object.entries(input)) {
      const path = `${prefix}${key}`;
      if (!(key in output)) {
        if (value !== undefined) out.push(path);
      } else {
        out.push(...ignoredFields(value, output[key], `${path}.`));
      }
    }
  } else if (Array.isArray(input) && Array.isArray(output) && input.length === output.length) {
    input.forEach((item, i) => out.push(...ignoredFields(item, output[i], `${prefix}${i}.`)));
  }
  return out;
}

/** Warns about each field of `input` that its validated form `output` dropped (see `ignoredFields`). */
export function warnIgnoredFields(input: unknown, output: unknown, prefix = ''): void {
  for (const field of ignoredFields(input, output, prefix)) sandboxWarning(`Unknown field ${field} was ignored`);
}
