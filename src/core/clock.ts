/**
 * The sandbox clock. It follows real time plus an offset that only grows, so tests and the
 * control plane can move time forward without sleeping. Every timestamp in the sandbox comes
 * from here.
 */
export interface Clock {
  /** Milliseconds since the epoch on the sandbox clock. */
  now(): number;
  /** ISO 8601 string of `now()`. */
  iso(): string;
}

/** A clock that is real time plus an adjustable, persisted offset. */
export class SandboxClock implements Clock {
  private offsetMs: number;

  /**
   * @param realNow source of real time (injected for tests)
   * @param initialOffsetMs offset restored from storage
   * @param onOffsetChange called whenever the offset moves, so it can be persisted
   */
  constructor(
    private readonly realNow: () => number = Date.now,
    initialOffsetMs = 0,
    private readonly onOffsetChange: (offsetMs: number) => void = () => {},
  ) {
    this.offsetMs = initialOffsetMs;
  }

  now(): number {
    return this.realNow() + this.offsetMs;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Current offset from real time in milliseconds. */
  get offset(): number {
    return this.offsetMs;
  }

  /** Moves the clock to `targetMs` (never backwards). */
  moveTo(targetMs: number): void {
    const delta = targetMs - this.now();
    if (delta <= 0) return;
    this.offsetMs += delta;
    this.onOffsetChange(this.offsetMs);
  }
}
