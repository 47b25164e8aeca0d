/**
 * The operation calls this process is running, counted so that a shutdown closes the database
 * only once they have settled. A shutdown cuts the connections still open after its grace, which
 * aborts their executions; an aborted execution still settles its charge, its usage row and its
 * run, and closing the database under it lost all three (regression).
 *
 * A counter rather than a set of promises: every request passes here, and two integer updates
 * cost nothing next to what a promise per request would.
 */
export interface InFlightCalls {
  begin(): void;
  end(): void;
  /** How many calls are running now. */
  readonly count: number;
  /** Resolves true once no call is running, or false when `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean>;
}

export function createInFlightCalls(): InFlightCalls {
  let count = 0;
  let waiters: Array<() => void> = [];
  return {
    begin() {
      count += 1;
    },
    end() {
      count -= 1;
      if (count > 0 || waiters.length === 0) return;
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    },
    get count() {
      return count;
    },
    idle(timeoutMs) {
      if (count === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter !== wake);
          resolve(false);
        }, timeoutMs);
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        waiters.push(wake);
      });
    },
  };
}
