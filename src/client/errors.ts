/** An error answer of the Porch API, as the typed client throws it. */
export class PorchApiError extends Error {
  override readonly name = 'PorchApiError';

  constructor(
    /** HTTP status. */
    readonly status: number,
    /** The error code from the envelope (`RATE_LIMITED`, `AI_SERVICE_ERROR`, ...). */
    readonly code: string,
    message: string,
    /** The request id, to quote when reporting a problem. */
    readonly requestId: string | null,
    /** Seconds the server asked to wait (429), when it said. */
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

interface ErrorEnvelope {
  error?: { code?: unknown; message?: unknown; request_id?: unknown; retry_after?: unknown };
}

/** Reads an error response into a PorchApiError, whatever its body looks like. */
export async function readApiError(response: Response): Promise<PorchApiError> {
  let envelope: ErrorEnvelope = {};
  try {
    envelope = (await response.json()) as ErrorEnvelope;
  } catch {
    // Not JSON (a proxy's error page, say): the status alone has to do.
  }
  const error = envelope.error ?? {};
  const header = response.headers.get('retry-after');
  const retryAfter = header !== null && /^\d+$/.test(header) ? Number(header) : typeof error.retry_after === 'number' ? error.retry_after : null;
  return new PorchApiError(
    response.status,
    typeof error.code === 'string' ? error.code : `HTTP_${response.status}`,
    typeof error.message === 'string' ? error.message : `The API answered HTTP ${response.status}.`,
    typeof error.request_id === 'string' ? error.request_id : response.headers.get('x-request-id'),
    retryAfter,
  );
}
