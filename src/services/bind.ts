/**
 * A use case with its dependencies bound: services are top-level functions taking `deps` first, and each
 * factory only binds them (`create: bindDeps(deps, create)`).
 */
export function bindDeps<D, A extends unknown[], R>(deps: D, useCase: (deps: D, ...args: A) => R): (...args: A) => R {
  return (...args) => useCase(deps, ...args);
}
