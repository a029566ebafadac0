// The import rules of src/ (ARCHITECTURE.md draws them): no circle, and each layer imports only
// the layers below it. `npm run check:layers` (and so `npm test`) runs dependency-cruiser with
// this file; a wrong import fails with the name of the rule it breaks. Type-only imports count
// (`tsPreCompilationDeps`): a circle of types is still a circle for whoever reads the code.
//
// The layers, from the ground up:
//   core, generated -> store -> crypto, tenancy -> server -> events -> rules (data only, on core)
//   -> areas (resources/*) -> guards (sca, wallet-auth, agents, tokens) -> control
//   -> composition root (src/index.ts) -> cli, tui (over the composition root or HTTP: client/)

/** Folders of src/ as path patterns. */
const layer = (...names) => `^src/(${names.join('|')})/`;
const BELOW_SERVER = ['core', 'generated', 'store', 'crypto', 'tenancy'];
const BELOW_EVENTS = [...BELOW_SERVER, 'server'];
const BELOW_AREAS = [...BELOW_EVENTS, 'events', 'rules'];
/** The areas that guard others; they register with what they guard. */
const GUARDS = ['sca', 'wallet-auth', 'agents', 'tokens'];
/** The areas a guard stands in front of (each exposes an extension point for it). */
const GUARDED = ['quotes', 'customers', 'external-accounts', 'cards'];
const area = (...names) => `^src/resources/(${names.join('|')})/`;

/** A rule: modules matching `from` may import nothing matching `to`. */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

module.exports = {
  forbidden: [
    forbid('no-circular', 'Imports point down only: a circle means two modules cannot be read or changed apart.', { path: '^src/' }, { circular: true }),

    forbid('layer-core-imports-nothing', 'core (clock, ids, errors, money, pagination, list queries, logger) imports nothing else of the project.', { path: layer('core') }, { path: '^src/', pathNot: layer('core') }),
    forbid('layer-generated-imports-nothing', 'generated/ is derived from the contract and imports nothing.', { path: layer('generated') }, { path: '^src/', pathNot: layer('generated') }),
    forbid('layer-store-imports-only-core', 'store (database, migrations, jobs, idempotency, outbox, the sandbox context) builds on core only.', { path: layer('store') }, { path: '^src/', pathNot: layer('core', 'store') }),
    forbid('layer-crypto-imports-only-core', 'crypto is pure functions: no database, no clock, nothing above core.', { path: layer('crypto') }, { path: '^src/', pathNot: layer('core', 'crypto') }),
    forbid('layer-tenancy-imports-only-core-store-crypto', 'tenancy (platforms and their credentials) sits below the server and every area.', { path: layer('tenancy') }, { path: '^src/', pathNot: layer('core', 'generated', 'store', 'crypto', 'tenancy') }),

    forbid('server-imports-no-area', 'The HTTP core knows no area: areas are mounted and authentication schemes registered by the composition root.', { path: layer('server') }, { path: '^src/resources/' }),
    forbid('layer-server-imports-only-below', 'server imports core, generated, store, crypto and tenancy only (never events, rules, control or the composition root).', { path: layer('server') }, { path: '^src/', pathNot: [layer(...BELOW_EVENTS), '^src/resources/'] }),
    forbid('layer-events-imports-only-below', 'events (outbox delivery, signing, triggers) imports the layers below it only.', { path: layer('events') }, { path: '^src/', pathNot: layer(...BELOW_EVENTS, 'events') }),
    forbid('layer-rules-import-only-core', 'rules/ holds the sandbox rule tables: data, on core at most.', { path: layer('rules') }, { path: '^src/', pathNot: layer('core', 'rules') }),

    forbid('areas-import-only-lower-layers', 'An area imports the layers below it and other areas; never the control plane, the composition root, the CLI, the TUI or the client.', { path: '^src/resources/' }, { path: '^src/', pathNot: [layer(...BELOW_AREAS), '^src/resources/'] }),
    forbid('area-contract-imports-no-area', 'resources/area.ts, the contract every area implements, depends on no area.', { path: '^src/resources/area[.]ts$' }, { path: '^src/resources/[^/]+/' }),
    forbid('areas-reach-other-areas-through-index', "An area reaches another area only through that area's index.ts.", { path: '^src/resources/([^/]+)/' }, { path: '^src/resources/[^/]+/', pathNot: ['^src/resources/$1/', '^src/resources/[^/]+/index[.]ts$'] }),
    forbid('quotes-customers-external-accounts-cards-import-no-guard', 'A guarded area exposes an extension point; SCA, wallet signatures and agent policies register there. It never imports its guards.', { path: area(...GUARDED) }, { path: area(...GUARDS) }),
    forbid('areas-import-no-guard', 'Guards (sca, wallet-auth, agents, tokens) sit above the areas: an area imports none of them.', { path: '^src/resources/', pathNot: area(...GUARDS, ...GUARDED) }, { path: area(...GUARDS) }),
    forbid('guards-import-no-other-guard', 'Each guard stands on the areas alone, not on another guard.', { path: area(...GUARDS) }, { path: area(...GUARDS), pathNot: '^src/resources/$1/' }),

    forbid('control-imports-no-composition-root', 'The control plane (/_sandbox, fixtures, snapshots, seed, reset, change stream) sits below the composition root, the CLI and the TUI.', { path: layer('control') }, { path: ['^src/index[.]ts$', layer('cli', 'tui', 'client')] }),
    forbid('composition-root-imports-no-cli-or-tui', 'src/index.ts lists areas, guards, auth schemes and the control plane; the CLI and TUI stand on it.', { path: '^src/index[.]ts$' }, { path: layer('cli', 'tui') }),
    forbid('cli-imports-only-composition-root-and-client', 'The CLI works over HTTP (client/) or the composition root (src/index.ts); core and crypto are pure libraries it may use.', { path: layer('cli') }, { path: '^src/', pathNot: ['^src/index[.]ts$', layer('cli', 'tui', 'client', 'core', 'crypto')] }),
    forbid('tui-imports-only-client', 'The terminal UI reads and acts over HTTP (client/) only.', { path: layer('tui') }, { path: '^src/', pathNot: layer('tui', 'client') }),
    forbid('client-imports-only-core', 'client/ is the HTTP client of a running sandbox: it knows the wire, not the server.', { path: layer('client') }, { path: '^src/', pathNot: layer('core', 'client') }),
  ],
  options: {
    // Type-only imports are dependencies too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    moduleSystems: ['es6'],
    reporterOptions: { text: { highlightFocused: true } },
  },
};
