/** What the client knows of an operation at run time; the types come from the definitions. */
export interface ClientRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Under the API base, with `{param}` placeholders. */
  path: string;
  /** Executions: the client sends one Idempotency-Key per call, the same on every retry. */
  idempotent: boolean;
  responseType: 'json' | 'markdown';
  /** Executions that `Prefer: respond-async` queues as an asynchronous run (`executeAsync`). */
  queueable: boolean;
  /** What the operation streams with `Accept: text/event-stream` (absent: it cannot stream). */
  streams?: 'deltas' | 'nodes';
}
