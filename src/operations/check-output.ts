/**
 * The run-time half of typed outputs. `run` is typed by the output schema, but a structural type
 * lets extra fields through (a core record with more fields than the documented item) and
 * cannot see a string that is not a timestamp. The test harness serves every operation wrapped
 * in this check and fails the test file on any reported mismatch; production skips the cost.
 */
import { isDeepStrictEqual } from 'node:util';
import { formatZodError } from '../core/validation.js';
import type { Operation } from './operation.js';

/** An operation answered something its output schema does not document. */
export class OutputMismatchError extends Error {
  override readonly name = 'OutputMismatchError';
}

/** JSON as the client receives it: undefined fields dropped, dates as strings. */
function asSent(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** Throws OutputMismatchError unless `data` is exactly what the operation's output schema documents. */
export function checkOperationOutput(operation: Pick<Operation, 'name' | 'output'>, data: unknown): void {
  if (operation.output === null) {
    if (data !== undefined) throw new OutputMismatchError(`${operation.name} answers 204 but returned data.`);
    return;
  }
  const parsed = operation.output.safeParse(data);
  if (!parsed.success)
    throw new OutputMismatchError(`${operation.name} answered outside its output schema: ${formatZodError(parsed.error, { whole: 'data' })}.`);
  // Parsing drops undocumented fields; any difference between the parsed and the sent JSON is one.
  if (!isDeepStrictEqual(asSent(parsed.data), asSent(data))) {
    throw new OutputMismatchError(`${operation.name} answered fields its output schema does not document: ${JSON.stringify(data).slice(0, 500)}`);
  }
}

/**
 * The operation with every answer checked against its output schema. A mismatch goes to
 * `report` and the answer is sent as it is, so the request behaves as in production and the
 * report names the operation and the difference.
 */
export function withOutputCheck<Op extends Operation>(operation: Op, report: (error: OutputMismatchError) => void): Op {
  const run = operation.run.bind(operation) as (...args: Parameters<Op['run']>) => Promise<unknown>;
  const check = (data: unknown) => {
    try {
      checkOperationOutput(operation, data);
    } catch (err) {
      if (!(err instanceof OutputMismatchError)) throw err;
      report(err);
    }
  };
  const checked: Op = {
    ...operation,
    async run(...args: Parameters<Op['run']>) {
      const data = await run(...args);
      check(data);
      return data;
    },
  };
  if (operation.access === 'keyed' && operation.streamItems) {
    const streamItems = operation.streamItems.bind(operation);
    // Each page is checked as the list it would be on its own, so a streamed list meets the same schema.
    Object.assign(checked, {
      async *streamItems(...args: Parameters<typeof streamItems>) {
        for await (const page of streamItems(...args)) {
          check({ items: page, count: page.length });
          yield page;
        }
      },
    });
  }
  return checked;
}
