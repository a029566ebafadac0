import { Box, Text, useApp, useInput, useStdout, type Key } from 'ink';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { SandboxClient, type Change, type Connection } from './client.js';
import { cell, colorsEnabled, parseDuration } from './format.js';
import { ListStore } from './list-store.js';
import type { DetailSection, ResourceView, ViewAction } from './views/index.js';

/** Lines the request log pane shows (for `start --ui`). */
export interface LogSource {
  lines(): readonly string[];
  subscribe(listener: () => void): () => void;
}

/** Props of the terminal UI. */
export interface AppProps {
  client: SandboxClient;
  views: readonly ResourceView<any>[];
  /** The request log of an in-process sandbox (`start --ui`); absent when attached to a running one. */
  log?: LogSource | undefined;
  /** Colours on (default: unless NO_COLOR is set). */
  color?: boolean;
  /** How often the status line reads the clock and job count, in ms (a clock move is read at once). */
  clockEveryMs?: number;
  /** Called when the user quits. */
  onExit?: () => void;
  /** Switches to another platform's credentials (key P); rejects if they do not work. */
  onSwitch?: (connection: Connection) => Promise<void>;
}

type Mode =
  | { kind: 'list' }
  | { kind: 'detail'; title: string; sections: DetailSection[] | undefined; scroll: number }
  | { kind: 'input'; label: string; value: string; submit: (value: string) => void }
  | { kind: 'confirm'; label: string; accept: () => void }
  | { kind: 'help' };

interface ClockState {
  now: string;
  offsetSeconds: number;
  pendingJobs: number;
  /** When it was read (real time), to run the clock on between reads. */
  readAt?: number;
}

const offsetText = (exact: number) => {
  const seconds = Math.round(exact);
  if (seconds < 1) return '+0s';
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  return `+${d ? `${d}d` : ''}${h ? `${h}h` : ''}${m ? `${m}m` : ''}${!d && !h && s ? `${s}s` : ''}`;
};

/**
 * Column widths for a terminal `width` wide: fixed columns as asked, the flexible one (width 0)
 * takes what is left; when that is too little, the fixed ones shrink in proportion, so a row
 * never wraps (80 columns and up).
 */
export function layoutColumns(asked: readonly number[], width: number): number[] {
  const room = width - 2 - (asked.length - 1);
  const flexCount = asked.filter((w) => w === 0).length;
  const minFlex = 8 * flexCount;
  const fixed = asked.reduce((sum, w) => sum + w, 0);
  const scale = fixed + minFlex > room ? Math.max(0, room - minFlex) / fixed : 1;
  const widths = asked.map((w) => (w === 0 ? 0 : Math.max(3, Math.floor(w * scale))));
  const left = room - widths.reduce((sum, w) => sum + w, 0);
  const each = flexCount ? Math.max(3, Math.floor(left / flexCount)) : 0;
  return widths.map((w) => (w === 0 ? each : w));
}

/** Fixed lines around the list: tabs, header, message, status (and the log pane). */
const LOG_LINES = 5;

/** The terminal UI: tabs of resource views, a windowed list, detail, prompts, a live status line. */
export function App({ client, views, log, color = colorsEnabled(), clockEveryMs = 5000, onExit, onSwitch }: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [size, setSize] = useState({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [active, setActive] = useState(0);
  const [mode, setModeState] = useState<Mode>({ kind: 'list' });
  // Keys can arrive faster than renders (a paste, a loaded machine): the key handler reads the
  // latest mode from this ref, not from the last render, so no keystroke is lost.
  const modeRef = useRef(mode);
  const setMode = useCallback((next: Mode | ((current: Mode) => Mode)) => {
    const value = typeof next === 'function' ? next(modeRef.current) : next;
    modeRef.current = value;
    setModeState(value);
  }, []);
  const [message, setMessage] = useState<string>('? for help');
  const [filter, setFilter] = useState('');
  const [clock, setClock] = useState<ClockState | undefined>();
  const [live, setLive] = useState(false);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const selection = useRef(new Map<string, { index: number; top: number }>());
  const stores = useRef(new Map<string, ListStore<any>>());
  const c = (name: string | undefined) => (color ? name : undefined);

  const view = views[active]!;
  const storeOf = useCallback(
    (v: ResourceView<any>) => {
      let store = stores.current.get(v.id);
      if (!store) {
        store = new ListStore(v, client);
        stores.current.set(v.id, store);
        store.onUpdate(redraw);
        void store.loadFirst();
      }
      return store;
    },
    [client],
  );
  const store = storeOf(view);

  // Terminal size: follow resizes.
  useEffect(() => {
    const onResize = () => setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);

  // The request log pane.
  useEffect(() => (log ? log.subscribe(redraw) : undefined), [log]);

  // The status line's clock: read now and then, and at once when the clock moves.
  const readClock = useCallback(() => {
    client.control<ClockState>('GET', '/clock').then(
      (body) => setClock({ ...body, readAt: Date.now() }),
      () => setClock(undefined),
    );
  }, [client]);
  useEffect(() => {
    readClock();
    // Between reads the shown time runs on by itself; a read now and then keeps the job count honest.
    const tick = setInterval(redraw, 1000);
    const timer = setInterval(readClock, clockEveryMs);
    return () => {
      clearInterval(tick);
      clearInterval(timer);
    };
  }, [readClock, clockEveryMs]);

  // One line short of the screen: ink redraws a frame as tall as the terminal by clearing it.
  const listHeight = Math.max(3, size.rows - 5 - (log ? LOG_LINES + 1 : 0));
  const filtered = useMemo(() => {
    if (!filter) return store.rows;
    const needle = filter.toLowerCase();
    // Any shown cell, or any field of the row (a full id, an email, a platformCustomerId).
    return store.rows.filter(
      (row) => view.columns.some((column) => column.value(row).toLowerCase().includes(needle)) || JSON.stringify(row).toLowerCase().includes(needle),
    );
    // store.rows changes identity on every update
  }, [store, store.rows, filter, view]);
  const place = selection.current.get(view.id) ?? { index: 0, top: 0 };
  const index = Math.min(place.index, Math.max(0, filtered.length - 1));
  const top = Math.min(Math.max(0, Math.min(place.top, index)), Math.max(0, index));
  const windowTop = index >= top + listHeight ? index - listHeight + 1 : top;

  // Live updates: a change refreshes the visible view's window (debounced), and the clock.
  const pending = useRef<NodeJS.Timeout | undefined>(undefined);
  const clockPending = useRef<NodeJS.Timeout | undefined>(undefined);
  const latest = useRef({ view, windowTop, listHeight, store });
  latest.current = { view, windowTop, listHeight, store };
  useEffect(
    () =>
      client.subscribe(
        (change: Change) => {
          // The job count follows writes; one read per burst of them.
          if ((change.kind === 'clock' || change.kind === 'request') && !clockPending.current) {
            clockPending.current = setTimeout(() => {
              clockPending.current = undefined;
              readClock();
            }, 50);
          }
          const { view: current } = latest.current;
          if (current.refreshOn && !current.refreshOn(change)) return;
          if (pending.current) return;
          pending.current = setTimeout(() => {
            pending.current = undefined;
            const { store: s, windowTop: from, listHeight: height } = latest.current;
            void s.refresh(from, from + height);
          }, 25);
        },
        setLive,
      ),
    [client, readClock],
  );
  useEffect(
    () => () => {
      clearTimeout(pending.current);
      clearTimeout(clockPending.current);
    },
    [],
  );

  // Near the end of what is loaded: load the next page (more pages while a filter hides rows).
  useEffect(() => {
    if (store.loaded && store.hasMore && !store.loading && !store.error && index + listHeight * 2 >= filtered.length) void store.loadMore();
  });

  const move = (to: number) => {
    const next = Math.max(0, Math.min(to, filtered.length - 1));
    let nextTop = windowTop;
    if (next < nextTop) nextTop = next;
    if (next >= nextTop + listHeight) nextTop = next - listHeight + 1;
    selection.current.set(view.id, { index: next, top: nextTop });
    redraw();
  };
  const selected = filtered[index];

  const runAction = (action: ViewAction<any>, row: any, input?: string) => {
    setMessage(`${action.label}...`);
    action.run(client, row, input).then(
      (text) => {
        setMessage(text);
        void store.refresh(windowTop, windowTop + listHeight);
      },
      (error: unknown) => setMessage(`failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };

  const openDetail = (row: any) => {
    if (!view.detail) return;
    const title = `${view.title}: ${view.key(row)}`;
    setMode({ kind: 'detail', title, sections: undefined, scroll: 0 });
    view.detail(client, row).then(
      (sections) => setMode((m) => (m.kind === 'detail' && m.title === title ? { ...m, sections } : m)),
      (error: unknown) => setMode((m) => (m.kind === 'detail' && m.title === title ? { ...m, sections: [{ title: 'Error', lines: [String(error instanceof Error ? error.message : error)] }] } : m)),
    );
  };

  const quit = () => {
    onExit?.();
    exit();
  };

  const globalActions: { key: string; label: string; run: () => void }[] = [
    {
      key: '+',
      label: 'advance the clock (e.g. 30s, 6m, 2h)',
      run: () =>
        setMode({
          kind: 'input',
          label: 'Advance the clock by',
          value: '',
          submit: (text) => {
            let seconds: number;
            try {
              seconds = parseDuration(text);
              if (seconds <= 0) throw new Error('the duration must be more than zero');
            } catch (error) {
              setMessage(`failed: ${(error as Error).message}`);
              return;
            }
            client.control<{ now: string }>('POST', '/clock/advance', { seconds }).then(
              (body) => {
                setMessage(`clock advanced to ${body.now}`);
                readClock();
              },
              (error: unknown) => setMessage(`failed: ${(error as Error).message}`),
            );
          },
        }),
    },
    {
      key: 'R',
      label: "reset the platform (wipes all of its data)",
      run: () =>
        setMode({
          kind: 'confirm',
          label: `Reset ${client.connection.clientId}: every customer, account, transaction and event is deleted. Sure? (y/n)`,
          accept: () =>
            client.control('POST', '/reset').then(
              () => {
                setMessage(`reset ${client.connection.clientId}`);
                for (const s of stores.current.values()) void s.loadFirst();
              },
              (error: unknown) => setMessage(`failed: ${(error as Error).message}`),
            ),
        }),
    },
  ];
  if (onSwitch) {
    globalActions.push({
      key: 'P',
      label: 'switch platform (client id, or clientId:secret)',
      run: () =>
        setMode({
          kind: 'input',
          label: 'Switch to platform (clientId or clientId:secret)',
          value: '',
          submit: (text) => {
            const colon = text.indexOf(':');
            const clientId = (colon < 0 ? text : text.slice(0, colon)).trim();
            if (!clientId) return setMessage('cancelled');
            const clientSecret = colon < 0 ? client.connection.clientSecret : text.slice(colon + 1);
            setMessage(`switching to ${clientId}...`);
            onSwitch({ url: client.connection.url, clientId, clientSecret }).catch((error: unknown) =>
              setMessage(`failed: ${error instanceof Error ? error.message : String(error)}`),
            );
          },
        }),
    });
  }

  const handle = (input: string, key: Key): void => {
    const mode = modeRef.current;
    if (key.ctrl && input === 'c') return quit();
    if (mode.kind === 'input') {
      if (key.escape) return setMode({ kind: 'list' });
      if (key.return) {
        setMode({ kind: 'list' });
        return mode.submit(mode.value);
      }
      if (key.backspace || key.delete) return setMode({ ...mode, value: mode.value.slice(0, -1) });
      if (input && !key.ctrl && !key.meta) return setMode({ ...mode, value: mode.value + input });
      return;
    }
    if (mode.kind === 'confirm') {
      setMode({ kind: 'list' });
      if (input === 'y' || input === 'Y') mode.accept();
      else setMessage('cancelled');
      return;
    }
    if (mode.kind === 'help') return setMode({ kind: 'list' });
    if (mode.kind === 'detail') {
      if (key.escape || key.backspace || key.leftArrow || input === 'q') return setMode({ kind: 'list' });
      if (key.downArrow || input === 'j') return setMode({ ...mode, scroll: mode.scroll + 1 });
      if (key.upArrow || input === 'k') return setMode({ ...mode, scroll: Math.max(0, mode.scroll - 1) });
      if (key.pageDown || input === ' ') return setMode({ ...mode, scroll: mode.scroll + listHeight });
      if (key.pageUp) return setMode({ ...mode, scroll: Math.max(0, mode.scroll - listHeight) });
      return;
    }
    // The list.
    if (input === 'q') return quit();
    if (input === '?') return setMode({ kind: 'help' });
    if (key.downArrow || input === 'j') return move(index + 1);
    if (key.upArrow || input === 'k') return move(index - 1);
    if (key.pageDown || (key.ctrl && input === 'd')) return move(index + listHeight);
    if (key.pageUp || (key.ctrl && input === 'u')) return move(index - listHeight);
    if (input === 'g') return move(0);
    if (input === 'G') return move(filtered.length - 1);
    if (key.tab || key.rightArrow) return setActive((active + (key.shift ? views.length - 1 : 1)) % views.length);
    if (key.leftArrow) return setActive((active + views.length - 1) % views.length);
    if (/^[1-9]$/.test(input) && Number(input) <= views.length) return setActive(Number(input) - 1);
    if (key.return && selected) return openDetail(selected);
    if (key.escape && filter) {
      setFilter('');
      return setMessage('filter cleared');
    }
    if (input === '/') {
      return setMode({
        kind: 'input',
        label: 'Filter (text in any column; empty clears)',
        value: filter,
        submit: (text) => {
          setFilter(text.trim());
          selection.current.set(view.id, { index: 0, top: 0 });
        },
      });
    }
    const global = globalActions.find((a) => a.key === input);
    if (global) return global.run();
    const action = view.actions?.find((a) => a.key === input);
    if (action) {
      if (!selected) return setMessage('nothing selected');
      if (action.applies && !action.applies(selected)) return setMessage(`${action.label}: not for this row`);
      if (action.prompt) {
        const row = selected;
        return setMode({ kind: 'input', label: action.prompt(row), value: '', submit: (text) => runAction(action, row, text) });
      }
      if (action.confirm) {
        const row = selected;
        return setMode({ kind: 'confirm', label: `${action.confirm(row)} (y/n)`, accept: () => runAction(action, row) });
      }
      return runAction(action, selected);
    }
  };
  const handler = useRef(handle);
  handler.current = handle;
  const inputMode = useRef(mode.kind === 'input');
  inputMode.current = mode.kind === 'input';
  // Always the handler of the latest render (ink may still hold an earlier callback for a moment).
  useInput((input, key) => {
    // Keys typed faster than a frame arrive together ("jx"): one at a time, each on the state the previous left.
    if (!inputMode.current && input.length > 1 && !key.ctrl && !key.meta && /^[\x20-\x7e]+$/.test(input)) {
      const [first, ...rest] = [...input];
      handler.current(first!, key);
      rest.forEach((ch, i) => setTimeout(() => handler.current(ch, key), i + 1));
      return;
    }
    handler.current(input, key);
  });

  const width = size.columns;
  // Tabs.
  const tabs = (
    <Box>
      {views.map((v, i) => (
        <Text key={v.id} inverse={i === active} color={i === active ? undefined : c('cyan')}>
          {` ${i + 1} ${v.title} `}
        </Text>
      ))}
    </Box>
  );

  const statusLine = (() => {
    const parts = [
      live ? 'live' : 'offline',
      clock ? `${new Date(Date.parse(clock.now) + (Date.now() - (clock.readAt ?? Date.now()))).toISOString().slice(0, 19).replace('T', ' ')} (${offsetText(clock.offsetSeconds)})` : 'clock ?',
      clock ? `${clock.pendingJobs} jobs` : '',
      client.connection.clientId,
      client.origin.replace(/^https?:\/\//, ''),
    ].filter(Boolean);
    return cell(parts.join(' | '), width);
  })();

  let body: React.ReactNode;
  if (mode.kind === 'help') {
    const lines = [
      'Keys',
      '  j / k, arrows       move          PgUp / PgDn, ctrl-u / ctrl-d  page',
      '  g / G               first / last  Enter  detail   Esc  back / clear filter',
      '  1-9, Tab, <- ->     switch view   /      filter   ?    this help   q  quit',
      '  +                   advance the clock (30s, 6m, 2h)',
      '  R                   reset the platform (asks first)',
      ...(onSwitch ? ['  P                   switch to another platform'] : []),
      ...views.flatMap((v) => (v.actions ?? []).map((a) => `  ${a.key.padEnd(20)}${v.title}: ${a.label}`)),
      '',
      'Any key closes this help.',
    ];
    body = (
      <Box flexDirection="column" height={listHeight + 1}>
        {lines.slice(0, listHeight + 1).map((line, i) => (
          <Text key={i}>{cell(line, width)}</Text>
        ))}
      </Box>
    );
  } else if (mode.kind === 'detail') {
    const lines: { text: string; title?: boolean }[] = [];
    if (!mode.sections) lines.push({ text: 'loading...' });
    for (const section of mode.sections ?? []) {
      lines.push({ text: section.title, title: true });
      for (const line of section.lines.length ? section.lines : ['(none)']) lines.push({ text: `  ${line}` });
    }
    const scroll = Math.min(mode.scroll, Math.max(0, lines.length - listHeight));
    body = (
      <Box flexDirection="column" height={listHeight + 1}>
        <Text bold>{cell(`${mode.title}  (Esc back, j/k scroll)`, width)}</Text>
        {lines.slice(scroll, scroll + listHeight).map((line, i) => (
          <Text key={i} bold={line.title} color={line.title ? c('cyan') : undefined}>
            {cell(line.text, width)}
          </Text>
        ))}
      </Box>
    );
  } else {
    const widths = layoutColumns(view.columns.map((column) => column.width), width);
    const header = `  ${view.columns.map((column, k) => cell(column.header, widths[k]!, column.align)).join(' ')}`;
    const visible = filtered.slice(windowTop, windowTop + listHeight);
    const empty = store.error ? `error: ${store.error}` : store.loaded ? (filter ? `nothing matches "${filter}"` : 'nothing yet') : 'loading...';
    body = (
      <Box flexDirection="column" height={listHeight + 1}>
        <Text bold>{cell(header, width)}</Text>
        {visible.length === 0 ? <Text color={c('gray')}>{cell(`  ${empty}`, width)}</Text> : null}
        {visible.map((row, i) => {
          const isSelected = windowTop + i === index;
          return (
            <Box key={view.key(row)}>
              <Text inverse={isSelected}>{isSelected ? '> ' : '  '}</Text>
              {view.columns.map((column, k) => (
                <Text key={k} inverse={isSelected} color={column.color ? c(column.color(row)) : undefined}>
                  {cell(column.value(row), widths[k]!, column.align) + (k < view.columns.length - 1 ? ' ' : '')}
                </Text>
              ))}
            </Box>
          );
        })}
      </Box>
    );
  }

  const countText = (() => {
    const loaded = store.rows.length;
    const total = store.total ?? loaded;
    const shown = filter
      ? `${filtered.length} match "${cell(filter, Math.min(filter.length, 16))}" (${loaded}/${total} loaded)`
      : `${filtered.length ? index + 1 : 0}/${total}`;
    return `${view.title} ${shown}`;
  })();

  const footer =
    mode.kind === 'input' ? (
      <Text color={c('yellow')}>{cell(`${mode.label}: ${mode.value}_`, width)}</Text>
    ) : mode.kind === 'confirm' ? (
      <Text color={c('red')}>{cell(mode.label, width)}</Text>
    ) : (
      <Text>{cell(`${countText} | ${message}`, width)}</Text>
    );

  const logLines = log ? log.lines().slice(-LOG_LINES) : [];
  return (
    <Box flexDirection="column" width={width}>
      {tabs}
      {body}
      {log ? (
        <Box flexDirection="column" height={LOG_LINES + 1}>
          <Text color={c('gray')}>{cell('-- request log ', width).replace(/ +$/, (s) => '-'.repeat(s.length))}</Text>
          {logLines.map((line, i) => (
            <Text key={i}>{cell(line, width)}</Text>
          ))}
        </Box>
      ) : null}
      {footer}
      <Text color={c('gray')}>{statusLine}</Text>
    </Box>
  );
}

/**
 * The UI with its connection as state: `P` swaps the platform and the views start over with
 * the new credentials (after they are checked).
 */
export function Root({ connection, ...props }: Omit<AppProps, 'client' | 'onSwitch'> & { connection: Connection }) {
  const [client, setClient] = useState(() => new SandboxClient(connection));
  const onSwitch = useCallback(async (next: Connection) => {
    const candidate = new SandboxClient(next);
    await candidate.control('GET', '/clock');
    setClient(candidate);
  }, []);
  return <App key={`${client.connection.clientId}`} {...props} client={client} onSwitch={onSwitch} />;
}
