/**
 * The plans an account can be on. Stated once here: the storage ports, the SQLite schema's enum,
 * account management and the model registry (which plans may use a model) all import it. A leaf
 * module (no imports) so that storage engines may depend on it without depending on core.
 */
export const PLANS = ['free', 'builder', 'expert'] as const;

export type Plan = (typeof PLANS)[number];
