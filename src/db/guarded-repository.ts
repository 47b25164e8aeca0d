/**
 * A repository whose every method turns the engine's own word for "the database cannot answer
 * right now" into StoreUnavailableError, so the doors answer 503 with Retry-After instead of 500.
 * Each engine says which of its errors those are (`translate`); the others pass unchanged.
 */
export function guarded<Repository extends object>(repository: Repository, translate: (err: unknown) => unknown): Repository {
  const methods = Object.entries(repository).map(([name, method]) => [
    name,
    typeof method === 'function'
      ? async (...args: unknown[]) => {
          try {
            return await method.apply(repository, args);
          } catch (err) {
            throw translate(err);
          }
        }
      : method,
  ]);
  return Object.fromEntries(methods) as Repository;
}
