import type { SandboxClient } from './client.js';
import type { ResourceView } from './views/index.js';

interface LoadedPage<Row> {
  /** The cursor this page was loaded with (undefined: the first page). */
  cursor: string | undefined;
  rows: Row[];
  next: string | undefined;
}

/**
 * The rows of one view as loaded so far, page by page (the contract's cursor pagination): the
 * UI shows a window of them and asks for the next page as the selection nears the end, so a
 * list of 100,000 customers costs one page to open. A refresh reloads only the pages under the
 * window (and the last page, where new rows of an ascending list appear).
 */
export class ListStore<Row> {
  private pages: LoadedPage<Row>[] = [];
  private flat: Row[] | undefined;
  private listeners = new Set<() => void>();
  private inFlight: Promise<void> | undefined;
  /** A refresh asked for while a load was in flight: run once it settles. */
  private refreshAgain: { from: number; to: number } | undefined;
  total: number | undefined;
  error: string | undefined;
  loaded = false;

  constructor(
    readonly view: ResourceView<Row>,
    private readonly client: SandboxClient,
    readonly pageSize = 100,
  ) {}

  /** Every loaded row, in order, each key once. */
  get rows(): Row[] {
    if (!this.flat) {
      const seen = new Set<string>();
      this.flat = [];
      for (const page of this.pages) {
        for (const row of page.rows) {
          const key = this.view.key(row);
          if (seen.has(key)) continue;
          seen.add(key);
          this.flat.push(row);
        }
      }
    }
    return this.flat;
  }

  /** Whether pages remain after the loaded ones. */
  get hasMore(): boolean {
    const last = this.pages.at(-1);
    return !this.loaded || last?.next !== undefined;
  }

  get loading(): boolean {
    return this.inFlight !== undefined;
  }

  onUpdate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.flat = undefined;
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

  /** Loads the first page (again). */
  loadFirst(): Promise<void> {
    return this.run(async () => {
      const page = await this.view.load(this.client, undefined, this.pageSize);
      this.pages = [{ cursor: undefined, rows: page.rows, next: page.nextCursor }];
      this.total = page.total;
      this.loaded = true;
    });
  }

  /** Loads the next page, if there is one. */
  loadMore(): Promise<void> {
    if (!this.loaded) return this.loadFirst();
    const last = this.pages.at(-1);
    if (!last || last.next === undefined) return Promise.resolve();
    const cursor = last.next;
    return this.run(async () => {
      const page = await this.view.load(this.client, cursor, this.pageSize);
      this.pages.push({ cursor, rows: page.rows, next: page.nextCursor });
      if (page.total !== undefined) this.total = page.total;
    });
  }

  /** Reloads the pages holding rows `from`..`to` (the window), and the last page. */
  refresh(from: number, to: number): Promise<void> {
    if (this.inFlight) {
      this.refreshAgain = { from, to };
      return this.inFlight;
    }
    if (!this.loaded) return this.loadFirst();
    return this.run(async () => {
      const wanted = new Set<number>();
      let start = 0;
      this.pages.forEach((page, index) => {
        const end = start + page.rows.length;
        if (end > from && start <= to) wanted.add(index);
        start = end;
      });
      wanted.add(0);
      if (this.pages.at(-1)?.next === undefined) wanted.add(this.pages.length - 1);
      const results = await Promise.all(
        [...wanted].map(async (index) => ({ index, page: await this.view.load(this.client, this.pages[index]!.cursor, this.pageSize) })),
      );
      for (const { index, page } of results) {
        this.pages[index] = { cursor: this.pages[index]!.cursor, rows: page.rows, next: page.nextCursor };
        if (page.total !== undefined) this.total = page.total;
      }
      // A last page that now has a next page: the pages after it are loaded on demand.
    });
  }
}
