import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * The processes between this one and the one that started it, when a package runner stands in
 * between: `npx service-sandbox &` makes npx (`npm exec`), and the `sh -c` it runs the bin with,
 * the sandbox's parents, and npx does not end when the shell that started it exits. Watching
 * through them makes a sandbox started with npx behave as one started directly: it stops when
 * the shell (or script) that started it ends.
 */

/** The parent pid and command line of a process, or undefined once it is gone. */
function processInfo(pid: number): { ppid: number; args: string } | undefined {
  if (process.platform === 'linux') {
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') return undefined; // dead, not yet reaped
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' ');
      return { ppid: Number(fields[1]), args };
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-o', 'ppid=,stat=,args=', '-p', String(pid)], { encoding: 'utf8' });
  const match = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(ps.stdout.trim());
  if (!match || match[2]!.startsWith('Z')) return undefined;
  return { ppid: Number(match[1]), args: match[3]! };
}

/** A package runner: npm (npx, npm exec, npm run/start), pnpm, yarn, bunx, as their titles or scripts show them. */
function isPackageRunner(args: string): boolean {
  const words = args.split(' ');
  const first = basename(words[0] ?? '');
  if (/^(npm|npx|pnpm|pnpx|yarn|bunx)$/.test(first)) return true;
  // node /usr/lib/node_modules/npm/bin/npx-cli.js ... (before npm sets its title)
  return /^node(js)?$/.test(first) && /(^|\/)(npm-cli|npx-cli|pnpm|pnpx|yarn)\.c?js$/.test(words[1] ?? '');
}

/** `sh -c <script>`, as a package runner runs a bin or a script. */
const isShellC = (args: string) => /^(\S*\/)?(sh|bash|dash|zsh)\s+-c(\s|$)/.test(args);

/** A link of the chain: `pid` must keep `parent` as its parent. */
export interface Link {
  pid: number;
  parent: number;
}

/**
 * The wrappers above this process that a package runner put there (each with its parent), up
 * to the process that ran the runner. Empty when the parent is not a runner.
 */
export function runnerChain(): Link[] {
  const chain: Link[] = [];
  let pid = process.ppid;
  for (let depth = 0; depth < 6 && pid > 1; depth += 1) {
    const info = processInfo(pid);
    if (!info || info.ppid <= 1) break;
    const runner = isPackageRunner(info.args) || (isShellC(info.args) && isPackageRunner(processInfo(info.ppid)?.args ?? ''));
    if (!runner) break;
    chain.push({ pid, parent: info.ppid });
    pid = info.ppid;
  }
  return chain;
}

/** Whether a link still holds: its process runs, with the same parent. */
export function linkHolds(link: Link): boolean {
  if (process.platform === 'linux') return processInfo(link.pid)?.ppid === link.parent;
  // Elsewhere a ps per poll is too dear: the parent is there, and so is the process.
  try {
    process.kill(link.parent, 0);
    process.kill(link.pid, 0);
    return true;
  } catch {
    return false;
  }
}
