// openapi-typescript builds its output with the TypeScript 5 compiler API; this project type-checks with
// TypeScript 7, which has no such API. package.json installs TypeScript 5 under the name `typescript5`
// (and tells npm that openapi-typescript's peer is satisfied); this hook points openapi-typescript's
// `import ts from 'typescript'` at it. Registered by the test that runs the generator, nowhere else.
export async function resolve(specifier, context, next) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/'))
    return next('typescript5', context);
  return next(specifier, context);
}
