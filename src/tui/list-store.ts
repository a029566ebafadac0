import type { SandboxClient } from './client.js';
import type { Order, Page, ResourceView } from './views/types.js';

interface LoadedPage<Row> {
  /** The cursor this page was loaded with (undefined: the first page from its end). */
  cursor: string | undefined;
  rows: Row[];
  next: string | undefined;
}

/**
 * The rows of one list (a view, its order and its filter), loaded a page at a time from each end:
 * the head in the list's order from the start, and, once `G` asks for the end of a list that can
 * be read the other way, the tail in the opposite order from the end. Rows between the two are
 * not loaded until the selection comes near them; when the two meet they are joined. A list of a
 * million customers costs one page to open, one page to reach its end, and one page per screen
 * scrolled.
 */
export class ListStore<Row> {
  private head: LoadedPage<Row>[] = [];
  private tail: LoadedPage<Row>[] = [];
  private headRows: Row[] | undefined;
  private tailRows: Row[] | undefined;
  private listeners = new Set<() => void>();
  private inFlight: Promise<void> | undefined;
  /** A refresh asked for while a load was in flight: run once it settles. */
  private refreshAgain: { from: number; to: number } | undefined;
  total: number | undefined;
  /** Whether `total` is a floor (the sandbox stopped counting). */
  totalCapped = false;
  error: string | undefined;
  loaded = false;

  constructor(
    readonly view: ResourceView<Row>,
    private readonly client: SandboxClient,
    readonly order: Order,
    readonly filter: string,
    readonly pageSize = 100,
  ) {}

  private load(cursor: string | undefined, order: Order): Promise<Page<Row>> {
    return this.view.load(this.client, { cursor, limit: this.pageSize, order, filter: this.filter });
  }

  private flatten(pages: LoadedPage<Row>[], seen: Set<string>): Row[] {
    const out: Row[] = [];
    for (const page of pages) {
      for (const row of page.rows) {
        const key = this.view.key(row);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(row);
      }
    }
    return out;
  }

  private materialize(): void {
    if (this.headRows && this.tailRows) return;
    const seen = new Set<string>();
    this.headRows = this.flatten(this.head, seen);
    // The tail is loaded from the end backwards: shown in the list's order.
    this.tailRows = this.flatten(this.tail, seen).reverse();
  }

  /** How many positions the list has (the known total, or what is loaded). */
  get length(): number {
    this.materialize();
    const loaded = this.headRows!.length + this.tailRows!.length;
    if (!this.tail.length) return this.headRows!.length;
    return Math.max(this.total ?? 0, loaded);
  }

  /** The row at `position`, or undefined where it is not loaded yet. */
  at(position: number): Row | undefined {
    this.materialize();
    if (position < this.headRows!.length) return this.headRows![position];
    if (!this.tail.length) return undefined;
    const tailStart = this.length - this.tailRows!.length;
    return position >= tailStart ? this.tailRows![position - tailStart] : undefined;
  }

  /** Every loaded row, in order (head, then tail). */
  get rows(): Row[] {
    this.materialize();
    return [...this.headRows!, ...this.tailRows!];
  }

  /** Whether rows after the head are not loaded yet. */
  get hasMore(): boolean {
    const last = this.head.at(-1);
    return !this.loaded || last?.next !== undefined;
  }

  /** Whether the last position of the list is known to be loaded. */
  get endLoaded(): boolean {
    return this.loaded && (!this.hasMore || this.tail.length > 0);
  }

  get loading(): boolean {
    return this.inFlight !== undefined;
  }

  /** Whether the list can be read from its end (the view reads both orders and the total is exact). */
  get reachesEnd(): boolean {
    return this.view.orders !== undefined && this.total !== undefined && !this.totalCapped;
  }

  onUpdate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.headRows = undefined;
    this.tailRows = undefined;
    // The two ends met: one list again.
    if (this.tail.length && this.total !== undefined) {
      this.materialize();
      if (this.headRows!.length + this.tailRows!.length >= this.total || this.head.at(-1)?.next === undefined) {
        const rows = [...this.headRows!, ...this.tailRows!];
        this.head = [{ cursor: undefined, rows, next: undefined }];
        this.tail = [];
        this.headRows = undefined;
        this.tailRows = undefined;
      }
    }
    for (const listener of this.listeners) listener();
  }

  private run(work: () => Promise<void>): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = work()
      .then(
        () => {
          this.error = undefined;
        },
        (error: unknown) => {
          this.error = error instanceof Error ? error.message : String(error);
        },
      )
      .finally(() => {
        this.inFlight = undefined;
        this.changed();
        const again = this.refreshAgain;
        this.refreshAgain = undefined;
        if (again) void this.refresh(again.from, again.to);
      });
    return this.inFlight;
  }

  private setTotal(page: Page<Row>): void {
    if (page.total !== undefined) {
      this.total = page.total;
      this.totalCapped = page.totalCapped === true;
    }
  }

  /** Loads the first page (again), forgetting the rest. */
  loadFirst(): Promise<void> {
    return this.run(async () => {
      const page = await this.load(undefined, this.order);
      this.head = [{ cursor: undefined, rows: page.rows, next: page.nextCursor }];
      this.tail = [];
      this.setTotal(page);
      this.loaded = true;
    });
  }

  /** Loads the next page of the head, if there is one. */
  loadMore(): Promise<void> {
    if (!this.loaded) return this.loadFirst();
    const last = this.head.at(-1);
    if (!last || last.next === undefined) return Promise.resolve();
    const cursor = last.next;
    return this.run(async () => {
      const page = await this.load(cursor, this.order);
      this.head.push({ cursor, rows: page.rows, next: page.nextCursor });
      this.setTotal(page);
    });
  }

  /** Loads the last page of the list (read the other way), or the next one towards the middle. */
  loadEnd(): Promise<void> {
    if (!this.loaded) return this.loadFirst();
    if (!this.hasMore) return Promise.resolve();
    const last = this.tail.at(-1);
    if (last && last.next === undefined) return Promise.resolve();
    const cursor = last?.next;
    const reverse: Order = this.order === 'asc' ? 'desc' : 'asc';
    return this.run(async () => {
      const page = await this.load(cursor, reverse);
      this.tail.push({ cursor, rows: page.rows, next: page.nextCursor });
    });
  }

  /**
   * Loads what the window `from`..`to` needs: the head's next page when the window nears the
   * head's end, the tail's next page when it nears the tail's start.
   */
  ensure(from: number, to: number): void {
    if (!this.loaded || this.loading || this.error) return;
    this.materialize();
    const margin = this.pageSize / 2;
    if (this.hasMore && to + margin >= this.headRows!.length && from - margin <= this.headRows!.length) {
      void this.loadMore();
      return;
    }
    if (this.tail.length) {
      const tailStart = this.length - this.tailRows!.length;
      if (from - margin <= tailStart && to + margin >= tailStart) void this.loadEnd();
    }
  }

  /** Reloads the pages holding rows `from`..`to` (the window), the first page, and the last page. */
  refresh(from: number, to: number): Promise<void> {
    if (this.inFlight) {
      this.refreshAgain = { from, to };
      return this.inFlight;
    }
    if (!this.loaded) return this.loadFirst();
    return this.run(async () => {
      const reverse: Order = this.order === 'asc' ? 'desc' : 'asc';
      const jobs: Promise<void>[] = [];
      const reload = (pages: LoadedPage<Row>[], index: number, order: Order) =>
        jobs.push(
          this.load(pages[index]!.cursor, order).then((page) => {
            pages[index] = { cursor: pages[index]!.cursor, rows: page.rows, next: page.nextCursor };
            if (pages === this.head && index === 0) this.setTotal(page);
          }),
        );
      let start = 0;
      this.head.forEach((page, index) => {
        const end = start + page.rows.length;
        if (index === 0 || (end > from && start <= to) || (index === this.head.length - 1 && page.next === undefined)) reload(this.head, index, this.order);
        start = end;
      });
      // The tail's pages count from the end.
      let end = this.length;
      this.tail.forEach((page, index) => {
        const begin = end - page.rows.length;
        if (index === 0 || (end > from && begin <= to)) reload(this.tail, index, reverse);
        end = begin;
      });
      await Promise.all(jobs);
    });
  }
}
