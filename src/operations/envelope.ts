/** The spec's error envelope, shared by every door that answers with it (REST, the MCP endpoint's 401). */
import { publicErrorCode, type ErrorCodeSet, type PorchError } from '../core/errors.js';

export interface ErrorEnvelope {
  success: false;
  error: { code: string; message: string; request_id: string; retry_after?: number };
}

export function errorEnvelope(error: PorchError, requestId: string, codeSet: ErrorCodeSet): ErrorEnvelope {
  return {
    success: false,
    error: {
      code: publicErrorCode(error.code, codeSet),
      message: error.message,
      request_id: requestId,
      ...(error.details.retryAfterSeconds === undefined ? {} : { retry_after: error.details.retryAfterSeconds }),
    },
  };
}
