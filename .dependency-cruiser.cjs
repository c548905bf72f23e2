/**
 * The layering of src/ and the packages, checked by dependency-cruiser on every `npm test`
 * (test/layering.test.ts runs it; `npx depcruise src packages/client/src packages/agentkit/src`
 * by hand).
 * docs/architecture.md draws the same arrows. Type-only imports count: a type import still
 * ties one room to another, and hides a circle.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'src/domain is logic on data: it never imports I/O (adapters), HTTP (routes, http, hono), start-up (service, main, config, logger) or the background process (process). Adapters implement the ports the domain declares.',
      from: { path: '^src/domain/' },
      to: {
        path: [
          '^src/(adapters|routes|http|service|process)/',
          '^src/(main|config|logger)\\.ts$',
          'node_modules/(hono|@hono)/',
        ],
      },
    },
    {
      name: 'domain-takes-answer-shapes-as-types',
      severity: 'error',
      comment:
        "The domain builds answers typed by the client package's schemas but never parses with them (routes and the client do): import type only.",
      from: { path: '^src/domain/' },
      to: {
        path: 'packages/client/dist/schemas/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'adapters-are-not-composition',
      severity: 'error',
      comment:
        'src/adapters do I/O behind small interfaces; wiring them to each other, to the configuration and to the app is src/service/ (composition), never an adapter.',
      from: { path: '^src/adapters/' },
      to: {
        path: [
          '^src/(routes|service|process)/',
          '^src/http/create-app\\.ts$',
          '^src/(main|config|logger)\\.ts$',
        ],
      },
    },
    {
      name: 'packages-are-not-the-service',
      severity: 'error',
      comment:
        "The published packages (the client, the AgentKit package) run in a buyer's project: they never import the service's src/.",
      from: { path: '^packages/' },
      to: { path: '^src/' },
    },
    {
      name: 'client-stays-lean',
      severity: 'error',
      comment:
        'The client package never depends on the AgentKit package or AgentKit itself: the AgentKit package depends on the client, and AgentKit is its peer.',
      from: { path: '^packages/client/' },
      to: { path: ['^packages/agentkit/', 'node_modules/@coinbase/agentkit'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle, type-only imports included.',
      from: { path: '^(src|packages/client/src|packages/agentkit/src)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too (`import type`, `export type ... from`).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'node', 'default'],
    },
  },
}
