import { fileURLToPath } from 'node:url';

/**
 * The package root, where skills/, docs/ and .well-known/ live: three levels up from this file in
 * src/rest/discovery/ and, after the build, in dist/rest/discovery/ alike.
 */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
