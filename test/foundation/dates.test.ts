import { describe, expect, it } from 'vitest';
import { isCalendarDate, IsoText, SandboxClock } from '../../src/core/clock.js';

// Calendar dates and instants' ISO text without formatting a Date each time (src/core/clock.ts):
// both must answer exactly what the Date-based forms they replaced answered.
const byDate = (value: string) => {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
};
const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('isCalendarDate', () => {
  it('agrees with the Date-based check on every month 00-13 and day 00-32 of leap, non-leap and edge years', () => {
    let checked = 0;
    for (const year of [0, 4, 100, 400, 1900, 1970, 1999, 2000, 2023, 2024, 2100, 9996, 9999]) {
      for (let month = 0; month <= 13; month += 1) {
        for (let day = 0; day <= 32; day += 1) {
          const value = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          expect(isCalendarDate(value), value).toBe(byDate(value));
          checked += 1;
        }
      }
    }
    expect(checked).toBe(13 * 14 * 33);
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('1900-02-29')).toBe(false);
    expect(isCalendarDate('2000-02-29')).toBe(true);
  });
});

describe('IsoText', () => {
  it('gives the ISO text of each instant, the same text for the same millisecond, a new one for the next', () => {
    const iso = new IsoText();
    for (const ms of [0, 1, 1, 999, 1_000, Date.UTC(2030, 0, 1), Date.UTC(2030, 0, 1), Date.UTC(2030, 0, 1) + 1, -1, 253402300799999]) {
      expect(iso.of(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it("the sandbox clock's text follows its instant as it moves", () => {
    let real = Date.UTC(2031, 5, 1, 12);
    const clock = new SandboxClock(() => real, { offsetMs: 0, peakMs: 0 }, () => undefined);
    expect(clock.iso()).toBe('2031-06-01T12:00:00.000Z');
    real += 1;
    expect(clock.iso()).toBe('2031-06-01T12:00:00.001Z');
    clock.moveTo(clock.now() + 60_000);
    expect(clock.iso()).toBe('2031-06-01T12:01:00.001Z');
  });
});
