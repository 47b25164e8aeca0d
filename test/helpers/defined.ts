/** A value the test setup guarantees; throws with `what` when it is missing, so the failure says which. */
export function defined<Value>(value: Value | undefined, what: string): Value {
  if (value === undefined) throw new Error(`Missing ${what}`);
  return value;
}
