#!/usr/bin/env node
// Adds lockfile entries for platform-specific optional dependencies that the registry this
// project installs from does not serve (for example rollup's android, darwin and win32
// bindings). npm 11 then leaves them out of package-lock.json, and `npm ci` rejects its own
// lockfile as out of sync ("Missing: @rollup/rollup-darwin-x64@ from lock file", npm/cli#9846).
// Each added entry carries the package's platform (os, cpu, libc, read from its name), so
// `npm ci` skips it on every other platform and never fetches it.
// Run after any `npm install` that changes the lockfile: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

const OS = { android: 'android', darwin: 'darwin', freebsd: 'freebsd', linux: 'linux', openbsd: 'openbsd', openharmony: 'openharmony', win32: 'win32' };
const CPU = { arm: 'arm', 'arm-eabi': 'arm', arm64: 'arm64', x64: 'x64', ia32: 'ia32', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x' };

/** os, cpu and libc from a binding name such as `rollup-linux-arm64-musl`. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const osIndex = parts.findIndex((p) => p in OS);
  if (osIndex < 0) return undefined;
  const rest = parts.slice(osIndex + 1);
  const cpuKey = rest[0] === 'arm' && rest[1] === 'eabi' ? 'arm-eabi' : rest[0];
  const cpu = CPU[cpuKey];
  if (!cpu) return undefined;
  const tail = rest.join('-');
  const libc = /musl/.test(tail) ? 'musl' : OS[parts[osIndex]] === 'linux' && /gnu/.test(tail) ? 'glibc' : undefined;
  return { os: [OS[parts[osIndex]]], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [where, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (packages[`node_modules/${dep}`] || packages[`${where}/node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) {
      console.warn(`left alone: ${dep}@${version} (no platform in its name)`);
      continue;
    }
    packages[`node_modules/${dep}`] = { version, ...platform, ...(entry.dev ? { dev: true } : {}), optional: true };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, 'en')));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
