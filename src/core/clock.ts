/**
 * The sandbox clock. It follows real time plus an offset. The offset grows when tests or the
 * control plane move time forward (without sleeping), and returns to 0 only on an explicit
 * reset, so sandbox time never falls behind real time. Every timestamp the sandbox makes comes
 * from here.
 */
export interface Clock {
  /** Milliseconds since the epoch on the sandbox clock. */
  now(): number;
  /** ISO 8601 string of `now()`. */
  iso(): string;
}

/** What a clock keeps across restarts. */
export interface ClockState {
  /** How far the sandbox clock is ahead of real time (ms, never negative). */
  offsetMs: number;
  /** The latest sandbox time reached before the last reset (ms; 0 when never reset). */
  peakMs: number;
}

/**
 * The ISO 8601 text of instants, made once for the latest one asked: a request asks for the same
 * millisecond several times, and `toISOString` formats through `snprintf`, a microsecond a call.
 */
export class IsoText {
  private ms = Number.NaN;
  private text = '';

  of(ms: number): string {
    if (ms !== this.ms) {
      this.ms = ms;
      this.text = new Date(ms).toISOString();
    }
    return this.text;
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether a `YYYY-MM-DD` text (four, two and two digits) names a day of the Gregorian calendar: no month 13, no 30 February. */
export function isCalendarDate(value: string): boolean {
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/**
 * A clock that is real time plus an adjustable, persisted offset; or, started at an instant
 * (`--clock-start`), a clock that stands still at that instant plus the offset, so it moves only
 * when told to (`advance`, an import) and two runs of the same requests see the same times.
 */
export class SandboxClock implements Clock {
  private offsetMs: number;
  private peakMs: number;
  private readonly isoText = new IsoText();

  /**
   * @param realNow source of real time (injected for tests)
   * @param initial state restored from storage
   * @param onChange called whenever the state moves, so it can be persisted
   * @param startMs the instant a still clock stands at (offset 0); undefined: the clock follows real time
   */
  constructor(
    private readonly realNow: () => number = Date.now,
    initial: Partial<ClockState> = {},
    private readonly onChange: (state: ClockState) => void = () => {},
    private readonly startMs?: number,
  ) {
    this.offsetMs = Math.max(0, initial.offsetMs ?? 0);
    this.peakMs = initial.peakMs ?? 0;
  }

  now(): number {
    return (this.startMs ?? this.realNow()) + this.offsetMs;
  }

  /** Whether the clock stands still (started at an instant) instead of following real time. */
  get still(): boolean {
    return this.startMs !== undefined;
  }

  /** The instant a still clock started at, undefined for a clock on real time. */
  get start(): number | undefined {
    return this.startMs;
  }

  iso(): string {
    return this.isoText.of(this.now());
  }

  /** Real time, from the injected source. */
  real(): number {
    return this.realNow();
  }

  /**
   * The instants a time a client took from its own clock (an OIDC token's `iat`/`exp`, a TOTP
   * code) is judged against: the sandbox clock and, while it differs, real time as well. A
   * client stamps real time even after a test moved the sandbox clock; a test may mint at
   * sandbox time. Times the sandbox itself made (sessions, OTPs, quotes) use `now()` only.
   */
  clientTimes(): number[] {
    const real = this.realNow();
    const now = (this.startMs ?? real) + this.offsetMs;
    return now === real ? [real] : [now, real];
  }

  /** Current offset from real time (a still clock: from its start instant) in milliseconds. */
  get offset(): number {
    return this.offsetMs;
  }

  /** The latest sandbox time reached before the last reset (0 when never reset): ids stay above it. */
  get peak(): number {
    return this.peakMs;
  }

  /** Moves the clock to `targetMs` (never backwards). */
  moveTo(targetMs: number): void {
    const delta = targetMs - this.now();
    if (delta <= 0) return;
    this.offsetMs += delta;
    this.onChange({ offsetMs: this.offsetMs, peakMs: this.peakMs });
  }

  /**
   * Puts the clock back to real time (the offset returns to 0): the one move backwards, and
   * only as far as real time (a still clock: back to its start instant). Returns the sandbox
   * time it left.
   */
  reset(): number {
    const left = this.now();
    if (this.offsetMs === 0) return left;
    this.offsetMs = 0;
    this.peakMs = Math.max(this.peakMs, left);
    this.onChange({ offsetMs: 0, peakMs: this.peakMs });
    return left;
  }
}
