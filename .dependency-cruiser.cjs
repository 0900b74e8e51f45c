/**
 * The folders' faces, kept by dependency-cruiser in `npm run lint` (docs/developer/faces.md).
 *
 * 1. no-circular: no import circle between files.
 * 2. no-import-past-face: a folder `lib/<x>/` is entered from outside only through its face,
 *    `lib/<x>/index.ts`. Type-only imports count too: a type reached past the face ties the caller
 *    to the folder's inner layout just as a value does. A single file (`lib/settings.ts`) is its
 *    own face. One written exception: `lib/aws-sdk.ts` is the face of `lib/aws-sdk/` (package.json's
 *    `imports` picks the loaders per build, `lib/aws-sdk.ts` says why).
 * 3. no-arrow-up: the top-level parts form the layers below, lowest first. A part imports parts of
 *    lower layers only: not a higher layer (an arrow up) and not another part of its own layer, so
 *    no two parts can import each other even through others. A new part goes into the list
 *    (no-unlisted-part fails until it is).
 *
 * Tests are not cruised (`options.exclude`): a unit test reads its folder's inner modules on
 * purpose (a face shows what callers need, not what a test pins down), and tests use higher
 * parts as stand-ins (the simulator as the service). Nothing imports a test, so no circle runs
 * through one.
 */

/** The layers, lowest first. A part is a folder under lib/, a single file under lib/, or a top folder. */
const LAYERS = [
  [
    'lib/abort.ts',
    'lib/aws-sdk',
    'lib/domain',
    'lib/errors.ts',
    'lib/redaction.ts',
    'lib/retry.ts',
    'lib/settleable.ts',
  ],
  ['lib/csv-records.ts', 'lib/gains', 'lib/pbs', 'lib/proof', 'lib/storage'],
  ['lib/adjustments', 'lib/fx', 'lib/ledger', 'lib/settings.ts', 'lib/simulator'],
  ['lib/export', 'lib/service-client.ts'],
  ['lib/jobs'],
  ['lib/api-schemas', 'lib/close', 'lib/fx-store'],
  ['lib/cli', 'lib/portal', 'lib/workflow'],
  ['lib/http-api'],
  ['lib/lambda'],
  ['functions', 'infra'],
  ['bench', 'lib/local'],
  ['bin'],
];

/** The path pattern of a part: a folder's files, or the one file. `lib/aws-sdk` is the folder and its face file. */
function partPattern(part) {
  const escaped = part.replace(/[.]/g, '\\.');
  if (part === 'lib/aws-sdk') return '^lib/aws-sdk(\\.ts$|/)';
  return part.endsWith('.ts') ? `^${escaped}$` : `^${escaped}/`;
}

const arrowsUp = LAYERS.flatMap((layer, index) =>
  layer.flatMap((part) => {
    const above = LAYERS.slice(index + 1).flat();
    const siblings = layer.filter((other) => other !== part);
    if (siblings.length + above.length === 0) return [];
    return {
      name: 'no-arrow-up',
      comment: `${part} (layer ${index + 1}) imports only parts of lower layers: not ${[...siblings, ...above].join(', ')}`,
      severity: 'error',
      from: { path: partPattern(part) },
      to: { path: [...siblings, ...above].map(partPattern) },
    };
  }),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'Files import each other (directly or through others): move what both need into a module of its own.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-import-past-face',
      comment:
        "A folder's inner module imported from outside the folder: import it from the folder's index.ts.",
      severity: 'error',
      from: { path: '^lib/([^/]+)/' },
      to: { path: '^lib/[^/]+/', pathNot: ['^lib/$1/', '^lib/[^/]+/index\\.ts$'] },
    },
    {
      name: 'no-import-past-face',
      comment:
        "A folder's inner module imported from outside the folder: import it from the folder's index.ts.",
      severity: 'error',
      from: { path: '^(bin|bench|functions|infra)/|^lib/[^/]+\\.tsx?$', pathNot: '^lib/aws-sdk\\.ts$' },
      to: {
        path: '^lib/[^/]+/',
        pathNot: '^lib/[^/]+/index\\.ts$',
        // The benchmark's child imports the Lambda workers alone, dynamically, in its Lambda modes:
        // bundled, a dynamic import of lib/workflow's face would hoist every package the face reaches
        // (the SNS client of its notices) into the other modes too (test/cli/lazy-sdk.test.ts).
        dependencyTypesNot: ['dynamic-import'],
      },
    },
    ...arrowsUp,
    {
      name: 'no-unlisted-part',
      comment: 'A part of the project missing from LAYERS in .dependency-cruiser.cjs: add it to its layer.',
      severity: 'error',
      from: { path: '^(lib|bin|bench|functions|infra)/', pathNot: LAYERS.flat().map(partPattern) },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '\\.test\\.tsx?$', '^test/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
