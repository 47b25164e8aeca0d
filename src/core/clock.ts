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

const MS_PER_DAY = 86_400_000;
/** Days from 0000-03-01 (the start of the proleptic Gregorian era used below) to 1970-01-01. */
const EPOCH_SHIFT_DAYS = 719_468;
const DAYS_PER_ERA = 146_097;
/** 0000-01-01 and 9999-12-31T23:59:59.999Z: outside, ISO 8601 needs six-digit signed years. */
const FOUR_DIGIT_YEARS = { min: -62_167_219_200_000, max: 253_402_300_799_999 };

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}

/**
 * `new Date(epochMs).toISOString()`, computed with integer arithmetic. Every list item carries two
 * timestamps, and the Date round trip was about a tenth of a 20-item list's CPU time; this is
 * four times faster. The civil-from-days step is Howard Hinnant's algorithm
 * (http://howardhinnant.github.io/date_algorithms.html#civil_from_days).
 */
export function toIsoTimestamp(epochMs: number): string {
  if (!Number.isInteger(epochMs) || epochMs < FOUR_DIGIT_YEARS.min || epochMs > FOUR_DIGIT_YEARS.max) return new Date(epochMs).toISOString();
  const days = Math.floor(epochMs / MS_PER_DAY);
  let rest = epochMs - days * MS_PER_DAY;
  const shifted = days + EPOCH_SHIFT_DAYS;
  const era = Math.floor(shifted / DAYS_PER_ERA);
  const dayOfEra = shifted - era * DAYS_PER_ERA;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153); // 0 = March
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  const yearText = `${year}`.padStart(4, '0');
  const millisText = millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : `${millis}`;
  return `${yearText}-${twoDigits(month)}-${twoDigits(day)}T${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}.${millisText}Z`;
}
