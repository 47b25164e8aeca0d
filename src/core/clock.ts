/** Time as the domain sees it. Injected everywhere so tests can move it without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests set and advance by hand. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 5, 1, 12, 0, 0)) {}

  now(): number {
    return this.current;
  }

  set(epochMs: number): void {
    this.current = epochMs;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

export function toIsoTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
