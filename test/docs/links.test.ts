import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// README.md, ARCHITECTURE.md and docs/*.md: every relative link names a file that exists, and every anchor a
// heading of that file (GitHub's slugs), so a reader following the map never lands nowhere.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pages = ['README.md', 'ARCHITECTURE.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, (code) => code.replace(/[[\]()]/g, ' '));
}

/** GitHub's anchor of each heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = text!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

describe('README and docs', () => {
  it('the README stays a door: under 250 lines', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThan(250);
  });

  it('the slugs follow GitHub', () => {
    expect([...anchorsOf('# `service-sandbox start` (the default command)\n## Money: internal accounts, the ledger\n## A\n## A')]).toEqual([
      'service-sandbox-start-the-default-command',
      'money-internal-accounts-the-ledger',
      'a',
      'a-1',
    ]);
  });

  it.each(pages)('every relative link and anchor in %s resolves', (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const broken: string[] = [];
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // http:, https:, mailto:
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path ? resolve(dirname(join(root, page)), path) : join(root, page);
      if (!existsSync(file)) {
        broken.push(`${target} (no file ${relative(root, file)})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${target} (no heading with anchor #${anchor} in ${relative(root, file)})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every page of docs/ is reachable from the README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1]));
    expect(pages.filter((page) => page.startsWith('docs/') && !linked.has(page))).toEqual([]);
  });
});
