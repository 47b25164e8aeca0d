/** A repository whose every method is `wrap` of the original, called with the repository as `this`. */
export function wrapMethods<Repository extends object>(
  repository: Repository,
  wrap: (call: (args: unknown[]) => Promise<unknown>) => (...args: unknown[]) => Promise<unknown>,
): Repository {
  const methods = Object.entries(repository).map(([name, method]) => [
    name,
    typeof method === 'function' ? wrap(async (args) => await method.apply(repository, args)) : method,
  ]);
  return Object.fromEntries(methods) as Repository;
}

/**
 * A repository whose every method turns the engine's own word for "the database cannot answer
 * right now" into StoreUnavailableError, so the doors answer 503 with Retry-After instead of 500.
 * Each engine says which of its errors those are (`translate`); the others pass unchanged.
 */
export function guarded<Repository extends object>(repository: Repository, translate: (err: unknown) => unknown): Repository {
  return wrapMethods(repository, (call) => async (...args) => {
    try {
      return await call(args);
    } catch (err) {
      throw translate(err);
    }
  });
}
