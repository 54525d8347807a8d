// The layers of DESIGN.md ("Modules"), enforced by `npm run lint`: each folder of src/ (and of the
// workspace packages: domain/ and api/ in packages/client, the sandbox in packages/sandbox)
// imports only the folders its row allows, and no module imports itself back through others.
// Folders not in DESIGN's table take the layer they belong to: dashboard/ (the daemon's static
// assets) sits beside report/; config/ (the application's configuration: the file's schemas, reading
// and loading it, its mapping to the engine's settings and wallets) sits under daemon/ and cli/,
// which both read it, and over what its schemas and mappings name (the engine's settings, the
// strategies' schema, the sandbox's written file, the ledger's notional, the wallets' accounts);
// cluster/ (cluster mode on Redis: leases, the key's shared budget, intent routing) sits beside
// engine/, over the transaction managers whose signatures its leases fence; index.ts is the
// library's public entry.

/** What each folder of src/ may import besides itself (DESIGN.md's "may import" column). */
const mayImport = {
  domain: [],
  api: ['domain'],
  chain: ['domain'],
  store: ['domain'],
  strategy: ['domain'],
  sandbox: ['domain'],
  report: ['domain', 'store'],
  dashboard: ['report'],
  transactions: ['domain', 'chain', 'store'],
  engine: ['domain', 'api', 'chain', 'store', 'transactions'],
  cluster: ['domain', 'api', 'transactions'],
  config: ['domain', 'chain', 'store', 'engine', 'strategy', 'sandbox', 'cluster'],
  daemon: ['domain', 'api', 'chain', 'store', 'transactions', 'engine', 'strategy', 'report', 'sandbox', 'dashboard', 'config', 'cluster'],
  cli: ['domain', 'api', 'chain', 'store', 'transactions', 'engine', 'strategy', 'report', 'sandbox', 'config', 'daemon', 'cluster'],
}
const folders = Object.keys(mayImport)
/** Where each layer lives: the client's and the sandbox's in their packages, the rest in src/. */
const layerPath = {
  ...Object.fromEntries(folders.map((folder) => [folder, `^src/${folder}/`])),
  domain: '^packages/client/src/domain/',
  api: '^packages/client/src/api/',
  sandbox: '^packages/sandbox/src/',
}
const sources = '^(src|packages/[^/]+/src)/'

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A module imports itself back through others: split what both need into a module of its own.',
      severity: 'error',
      from: { path: sources },
      to: { circular: true },
    },
    ...folders.map((folder) => ({
      name: `layer-${folder}`,
      comment: `${folder}/ may import only ${mayImport[folder].map((f) => `${f}/`).join(', ') || 'itself'} (DESIGN.md, Modules).`,
      severity: 'error',
      from: { path: layerPath[folder] },
      to: {
        path: sources,
        pathNot: [layerPath[folder], ...mayImport[folder].map((allowed) => layerPath[allowed])],
      },
    })),
    {
      name: 'engine-public-entry',
      comment: 'Code outside src/engine/ imports the engine through its public entry, src/engine/index.ts, only.',
      severity: 'error',
      from: { path: sources, pathNot: '^src/engine/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/index\\.ts$' },
    },
    {
      name: 'no-unknown-folder',
      comment: 'A new folder of src/ (or a new package) takes its layer in .dependency-cruiser.cjs and docs/architecture.md first.',
      severity: 'error',
      from: {
        path: sources,
        pathNot: [...Object.values(layerPath), '^src/index\\.ts$', '^packages/client/src/index\\.ts$'],
      },
      to: {},
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API: the sources are parsed with swc.
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a circle of types is a circle of the design.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // The compiled contract artifacts are generated: exempt.
    exclude: { path: '^packages/sandbox/src/contracts/artifacts/' },
  },
}
