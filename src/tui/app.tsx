import { Box, Text, useApp, useInput, useStdout, type Key } from 'ink';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { RequestError, SandboxClient, type Change, type Connection } from './client.js';
import { cell, colorsEnabled, fitColumns, parseDuration, setSandboxNow, stripAnsi } from './format.js';
import { ListStore } from './list-store.js';
import { customerNames } from './names.js';
import type { DetailSection, FormSpec, Order, ResourceView, ViewAction } from './views/index.js';

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

/** One record open in the detail pane; Backspace goes back to the one before. */
interface DetailFrame {
  title: string;
  view: ResourceView<any>;
  row: any;
  sections: DetailSection[] | undefined;
  cursor: number;
}

/** A form being filled in: one field focused, the sandbox's errors beside their fields. */
interface FormState {
  spec: FormSpec;
  values: Record<string, string>;
  errors: Record<string, string>;
  focus: number;
  busy: boolean;
}

type Mode =
  | { kind: 'list' }
  | { kind: 'detail' }
  | { kind: 'input'; label: string; value: string; submit: (value: string) => void; back: Mode }
  | { kind: 'confirm'; label: string; accept: () => void; back: Mode }
  | { kind: 'form'; form: FormState; back: Mode }
  | { kind: 'help'; back: Mode };

/** Where a view's list stands: its filter and order (they belong to the view), its selection. */
interface ViewState {
  filter: string;
  order: Order;
  index: number;
  top: number;
  /** `G` asked for the end while it was loading: select the last row once it is there. */
  toEnd: boolean;
}

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
 * Column widths for a terminal `width` wide from asked widths (0: flexible): kept for callers
 * that size columns without their content; the list sizes them to content with `fitColumns`.
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
/** A resource id in a line of text (`Customer:0191…`), which Enter in a detail opens. */
const ID_IN_TEXT = /\b([A-Z][A-Za-z]+:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/;
/** How many rows `G` loads page by page in a list that cannot be read from its end. */
const SEQUENTIAL_END_LIMIT = 5000;

const orderName = (order: Order) => (order === 'desc' ? 'newest first' : 'oldest first');
/** An error for the status line: the sandbox's message and the first field at fault. */
const describeError = (error: unknown) => {
  if (error instanceof RequestError && error.fields.length) return `${error.message} (${error.fields[0]!.field}: ${error.fields[0]!.message})`;
  return error instanceof Error ? error.message : String(error);
};

/** The terminal UI: tabs of resource views, a windowed list, detail, forms, prompts, a live status line. */
export function App({ client, views, log, color = colorsEnabled(), clockEveryMs = 5000, onExit, onSwitch }: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [size, setSize] = useState({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [clock, setClock] = useState<ClockState | undefined>();
  const [live, setLive] = useState(false);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  // Everything a key changes lives in this ref, not in React state: keys that arrive together (a
  // held key, a paste) are handled one by one, each on the state the one before left, before the
  // next render.
  const ui = useRef({
    active: 0,
    mode: { kind: 'list' } as Mode,
    message: '? for help',
    trail: [] as DetailFrame[],
    views: new Map<string, ViewState>(),
  });
  const stores = useRef(new Map<string, ListStore<any>>());
  const c = (name: string | undefined) => (color ? name : undefined);
  const listHeight = Math.max(3, size.rows - 5 - (log ? LOG_LINES + 1 : 0));
  const sizeRef = useRef(listHeight);
  sizeRef.current = listHeight;

  const stateOf = (v: ResourceView<any>): ViewState => {
    let st = ui.current.views.get(v.id);
    if (!st) ui.current.views.set(v.id, (st = { filter: '', order: v.defaultOrder ?? 'asc', index: 0, top: 0, toEnd: false }));
    return st;
  };
  const storeOf = (v: ResourceView<any>): ListStore<any> => {
    const st = stateOf(v);
    const key = `${v.id}\u0000${st.order}\u0000${st.filter}`;
    let store = stores.current.get(key);
    if (!store) {
      // A view keeps its unfiltered list and the one on screen; lists of earlier searches go.
      for (const old of [...stores.current.keys()]) {
        const [id, , filter] = old.split('\u0000');
        if (id === v.id && filter) stores.current.delete(old);
      }
      store = new ListStore(v, client, st.order, st.filter);
      stores.current.set(key, store);
      const s = store;
      store.onUpdate(() => {
        const now = stateOf(v);
        if (now.toEnd && s.endLoaded) {
          now.toEnd = false;
          place(v, s.length - 1);
        }
        redraw();
      });
      void store.loadFirst();
    }
    return store;
  };
  const setMessage = (text: string) => {
    ui.current.message = text;
    redraw();
  };
  const setMode = (mode: Mode) => {
    ui.current.mode = mode;
    redraw();
  };

  // Terminal size: follow resizes.
  useEffect(() => {
    const onResize = () => setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);

  // Names of owners and holders, as they come in.
  useEffect(() => customerNames.onUpdate(redraw), []);

  // The request log pane.
  useEffect(() => (log ? log.subscribe(redraw) : undefined), [log]);

  // The status line's clock: read now and then, and at once when the clock moves.
  const readClock = useCallback(() => {
    client.control<ClockState>('GET', '/clock').then(
      (body) => {
        setSandboxNow(body.now);
        setClock({ ...body, readAt: Date.now() });
      },
      () => setClock(undefined),
    );
  }, [client]);
  useEffect(() => {
    readClock();
    const tick = setInterval(redraw, 1000);
    const timer = setInterval(readClock, clockEveryMs);
    return () => {
      clearInterval(tick);
      clearInterval(timer);
    };
  }, [readClock, clockEveryMs]);

  const activeView = () => views[ui.current.active]!;

  /** Selects `to` in view `v`'s list (clamped), scrolling the window, and loads what it needs. */
  function place(v: ResourceView<any>, to: number): void {
    const st = stateOf(v);
    const store = storeOf(v);
    const height = sizeRef.current;
    const next = Math.max(0, Math.min(to, store.length - 1));
    st.index = next;
    if (next < st.top) st.top = next;
    if (next >= st.top + height) st.top = next - height + 1;
    st.top = Math.max(0, Math.min(st.top, Math.max(0, store.length - height)));
    store.ensure(st.top, st.top + height);
    redraw();
  }
  const move = (delta: number) => {
    const v = activeView();
    place(v, stateOf(v).index + delta);
  };

  const toEnd = () => {
    const v = activeView();
    const store = storeOf(v);
    const st = stateOf(v);
    if (store.endLoaded) return place(v, store.length - 1);
    if (store.reachesEnd) {
      st.toEnd = true;
      setMessage(`loading the end of ${v.title}...`);
      void store.loadEnd();
      return;
    }
    if ((store.total ?? Infinity) <= SEQUENTIAL_END_LIMIT) {
      st.toEnd = true;
      setMessage(`loading ${v.title} to its end...`);
      const step = (): Promise<void> => (store.hasMore && !store.error ? store.loadMore().then(step) : Promise.resolve());
      void step();
      return;
    }
    setMessage(`${v.title} cannot be read from its end here${v.orders ? '' : ' (one order only)'}; narrow it with /`);
  };

  // Live updates: a change refreshes the visible view's window (debounced), and the clock.
  const pending = useRef<NodeJS.Timeout | undefined>(undefined);
  const clockPending = useRef<NodeJS.Timeout | undefined>(undefined);
  useEffect(
    () =>
      client.subscribe(
        (change: Change) => {
          if ((change.kind === 'clock' || change.kind === 'request') && !clockPending.current) {
            clockPending.current = setTimeout(() => {
              clockPending.current = undefined;
              readClock();
            }, 50);
          }
          const current = activeView();
          if (current.refreshOn && !current.refreshOn(change)) return;
          if (pending.current) return;
          pending.current = setTimeout(() => {
            pending.current = undefined;
            const v = activeView();
            const st = stateOf(v);
            void storeOf(v).refresh(st.top, st.top + sizeRef.current);
            // An open detail shows the record as it is now.
            if (ui.current.mode.kind === 'detail' && ui.current.trail.length) reloadDetail(false);
          }, 25);
        },
        setLive,
      ),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [client, readClock],
  );
  useEffect(
    () => () => {
      clearTimeout(pending.current);
      clearTimeout(clockPending.current);
    },
    [],
  );

  // ---- detail: a trail of records, each id in it a link ----
  const frame = () => ui.current.trail.at(-1);
  function reloadDetail(reset: boolean): void {
    const f = frame();
    if (!f || !f.view.detail) return;
    if (reset) f.sections = undefined;
    const loading = f;
    // A fresh open has the row just read; a reload reads it again (its status may have moved).
    const fetchRow = f.view.fetch && !reset ? f.view.fetch(client, f.view.key(f.row)).catch(() => f.row) : Promise.resolve(f.row);
    fetchRow
      .then((row) => {
        loading.row = row;
        return f.view.detail!(client, row);
      })
      .then(
        (sections) => {
          loading.sections = sections;
          redraw();
        },
        (error: unknown) => {
          loading.sections = [{ title: 'Error', lines: [describeError(error)] }];
          redraw();
        },
      );
    redraw();
  }
  const openDetail = (v: ResourceView<any>, row: any) => {
    if (!v.detail) return setMessage(`${v.title} has no detail`);
    ui.current.trail.push({ title: `${v.title}: ${v.key(row)}`, view: v, row, sections: undefined, cursor: 0 });
    ui.current.mode = { kind: 'detail' };
    reloadDetail(true);
  };
  const viewOfId = (id: string) => {
    const prefix = id.slice(0, id.indexOf(':'));
    return views.find((v) => (Array.isArray(v.idPrefix) ? v.idPrefix.includes(prefix) : v.idPrefix === prefix));
  };
  const openId = (id: string) => {
    const v = viewOfId(id);
    if (!v || !v.fetch) return setMessage(`no view opens ${id.slice(0, id.indexOf(':'))} ids`);
    setMessage(`opening ${id}...`);
    v.fetch(client, id, frame()?.row).then(
      (row) => {
        ui.current.message = `${ui.current.trail.length + 1} deep: Backspace goes back`;
        openDetail(v, row);
      },
      (error: unknown) => setMessage(`failed: ${describeError(error)}`),
    );
  };
  const detailLines = (f: DetailFrame): { text: string; title?: boolean }[] => {
    const lines: { text: string; title?: boolean }[] = [];
    if (!f.sections) lines.push({ text: 'loading...' });
    for (const section of f.sections ?? []) {
      lines.push({ text: section.title, title: true });
      for (const line of section.lines.length ? section.lines : ['(none)']) lines.push({ text: `  ${line}` });
    }
    return lines;
  };

  // ---- actions and forms ----
  const runAction = (v: ResourceView<any>, action: ViewAction<any>, row: any, input?: string) => {
    setMessage(`${action.label}...`);
    action.run(client, row, input).then(
      (text) => {
        setMessage(text);
        const st = stateOf(v);
        void storeOf(v).refresh(st.top, st.top + sizeRef.current);
        if (ui.current.mode.kind === 'detail') reloadDetail(false);
      },
      (error: unknown) => setMessage(`failed: ${describeError(error)}`),
    );
  };
  const startAction = (v: ResourceView<any>, action: ViewAction<any>, row: any) => {
    if (!row) return setMessage('nothing selected');
    if (action.applies && !action.applies(row)) return setMessage(`${action.label}: not for this row`);
    const back = ui.current.mode;
    if (action.prompt) return setMode({ kind: 'input', label: action.prompt(row), value: action.suggest?.(row) ?? '', submit: (text) => runAction(v, action, row, text), back });
    if (action.confirm) return setMode({ kind: 'confirm', label: `${action.confirm(row)} (y/n)`, accept: () => runAction(v, action, row), back });
    return runAction(v, action, row);
  };
  const openForm = (spec: FormSpec, context: any) => {
    const values = Object.fromEntries(spec.fields.map((f) => [f.name, typeof f.initial === 'function' ? f.initial(context) : (f.initial ?? '')]));
    setMode({ kind: 'form', form: { spec: { ...spec, context }, values, errors: {}, focus: 0, busy: false }, back: ui.current.mode });
  };
  const submitForm = (mode: Extract<Mode, { kind: 'form' }>) => {
    const form = mode.form;
    form.busy = true;
    form.errors = {};
    setMessage(`${form.spec.title}...`);
    form.spec.submit(client, form.values, form.spec.context).then(
      (result) => {
        ui.current.mode = mode.back;
        setMessage(result.message);
        const v = activeView();
        const st = stateOf(v);
        void storeOf(v).refresh(st.top, st.top + sizeRef.current);
        if (result.open) openId(result.open);
      },
      (error: unknown) => {
        form.busy = false;
        const fields = error instanceof RequestError ? error.fields : [];
        const names = new Set(form.spec.fields.map((f) => f.name));
        for (const f of fields) {
          // `accountInfo.accountNumber` is shown beside `accountNumber` when the form has that field.
          const name = [f.field, f.field.split('.').at(-1)!, f.field.split('.')[0]!].find((n) => names.has(n));
          if (name) form.errors[name] = form.errors[name] ? `${form.errors[name]}; ${f.message}` : f.message;
        }
        // The first field the sandbox refused takes the focus.
        const first = form.spec.fields.findIndex((f) => form.errors[f.name]);
        if (first >= 0) form.focus = first;
        setMessage(`failed: ${describeError(error)}`);
      },
    );
    redraw();
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
          back: ui.current.mode,
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
      label: 'reset the platform (wipes all of its data)',
      run: () =>
        setMode({
          kind: 'confirm',
          label: `Reset ${client.connection.clientId}: every customer, account, transaction and event is deleted. Sure? (y/n)`,
          back: { kind: 'list' },
          accept: () =>
            client.control('POST', '/reset').then(
              () => {
                ui.current.trail = [];
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
          back: { kind: 'list' },
          submit: (text) => {
            const colon = text.indexOf(':');
            const clientId = (colon < 0 ? text : text.slice(0, colon)).trim();
            if (!clientId) return setMessage('cancelled');
            const clientSecret = colon < 0 ? client.connection.clientSecret : text.slice(colon + 1);
            setMessage(`switching to ${clientId}...`);
            onSwitch({ url: client.connection.url, clientId, clientSecret }).catch((error: unknown) => setMessage(`failed: ${describeError(error)}`));
          },
        }),
    });
  }

  const switchView = (to: number) => {
    ui.current.active = (to + views.length) % views.length;
    storeOf(activeView());
    setMessage(stateOf(activeView()).filter ? `filter: ${stateOf(activeView()).filter} (Esc clears)` : '? for help');
  };

  /** One key, on the state the previous key left. */
  const handle = (input: string, key: Key): void => {
    const u = ui.current;
    const mode = u.mode;
    if (key.ctrl && input === 'c') return quit();
    if (mode.kind === 'input') {
      if (key.escape) return setMode(mode.back);
      if (key.return) {
        setMode(mode.back);
        return mode.submit(mode.value);
      }
      if (key.backspace || key.delete) return setMode({ ...mode, value: mode.value.slice(0, -1) });
      if (input && !key.ctrl && !key.meta) return setMode({ ...mode, value: mode.value + input });
      return;
    }
    if (mode.kind === 'confirm') {
      setMode(mode.back);
      if (input === 'y' || input === 'Y') mode.accept();
      else setMessage('cancelled');
      return;
    }
    if (mode.kind === 'help') return setMode(mode.back);
    if (mode.kind === 'form') {
      const form = mode.form;
      const field = form.spec.fields[form.focus]!;
      if (key.escape) {
        setMode(mode.back);
        return setMessage('cancelled');
      }
      if (form.busy) return;
      if (key.tab || key.downArrow) {
        form.focus = (form.focus + (key.shift ? form.spec.fields.length - 1 : 1)) % form.spec.fields.length;
        return redraw();
      }
      if (key.upArrow) {
        form.focus = (form.focus + form.spec.fields.length - 1) % form.spec.fields.length;
        return redraw();
      }
      if (key.return) {
        if (form.focus < form.spec.fields.length - 1) {
          form.focus += 1;
          return redraw();
        }
        return submitForm(mode);
      }
      if (key.ctrl && input === 's') return submitForm(mode);
      if (field.choices && (key.leftArrow || key.rightArrow || input === ' ')) {
        const at = field.choices.indexOf(form.values[field.name] ?? '');
        form.values[field.name] = field.choices[(at + (key.leftArrow ? field.choices.length - 1 : 1)) % field.choices.length]!;
        return redraw();
      }
      if (key.backspace || key.delete) {
        form.values[field.name] = (form.values[field.name] ?? '').slice(0, -1);
        return redraw();
      }
      if (input && !key.ctrl && !key.meta && !field.choices) {
        form.values[field.name] = (form.values[field.name] ?? '') + input;
        delete form.errors[field.name];
        return redraw();
      }
      return;
    }
    if (input === '?') return setMode({ kind: 'help', back: mode });
    if (mode.kind === 'detail') {
      const f = frame();
      if (!f) return setMode({ kind: 'list' });
      const lines = detailLines(f);
      if (key.backspace || key.delete || key.leftArrow) {
        u.trail.pop();
        if (!u.trail.length) return setMode({ kind: 'list' });
        setMessage(`${u.trail.length} deep`);
        return reloadDetail(false);
      }
      if (key.escape || input === 'q') {
        u.trail = [];
        return setMode({ kind: 'list' });
      }
      if (key.tab) {
        // The next (Shift-Tab: previous) line that names a record.
        const step = key.shift ? -1 : 1;
        for (let at = f.cursor + step; at >= 0 && at < lines.length; at += step) {
          if (ID_IN_TEXT.test(lines[at]!.text) && !lines[at]!.title) {
            f.cursor = at;
            break;
          }
        }
      } else if (key.downArrow || input === 'j') f.cursor = Math.min(lines.length - 1, f.cursor + 1);
      else if (key.upArrow || input === 'k') f.cursor = Math.max(0, f.cursor - 1);
      else if (key.pageDown || input === ' ' || (key.ctrl && input === 'd')) f.cursor = Math.min(lines.length - 1, f.cursor + sizeRef.current);
      else if (key.pageUp || (key.ctrl && input === 'u')) f.cursor = Math.max(0, f.cursor - sizeRef.current);
      else if (input === 'g') f.cursor = 0;
      else if (input === 'G') f.cursor = lines.length - 1;
      else if (key.return) {
        const id = ID_IN_TEXT.exec(lines[f.cursor]?.text ?? '')?.[1];
        if (!id) return setMessage('no id on this line; move to one (j/k) and press Enter');
        if (id === f.view.key(f.row)) return setMessage('this is the record shown');
        return openId(id);
      } else {
        const global = globalActions.find((a) => a.key === input && a.key !== 'R' && a.key !== 'P');
        if (global) return global.run();
        const action = f.view.actions?.find((a) => a.key === input);
        if (action) return startAction(f.view, action, f.row);
        const form = f.view.forms?.find((x) => x.key === input);
        if (form) return openForm(form, f.row);
        return;
      }
      return redraw();
    }
    // The list.
    const v = activeView();
    const st = stateOf(v);
    const store = storeOf(v);
    if (input === 'q') return quit();
    if (key.downArrow || input === 'j') return move(1);
    if (key.upArrow || input === 'k') return move(-1);
    if (key.pageDown || (key.ctrl && input === 'd')) return move(sizeRef.current);
    if (key.pageUp || (key.ctrl && input === 'u')) return move(-sizeRef.current);
    if (input === 'g' || key.home) return place(v, 0);
    if (input === 'G' || key.end) return toEnd();
    if (key.tab || key.rightArrow) return switchView(u.active + (key.shift ? -1 : 1));
    if (key.leftArrow) return switchView(u.active - 1);
    if (/^[1-9]$/.test(input) && Number(input) <= views.length) return switchView(Number(input) - 1);
    if (key.return) {
      const row = store.at(st.index);
      return row ? openDetail(v, row) : setMessage('nothing selected');
    }
    if (key.escape) {
      if (!st.filter) return setMessage('no filter to clear');
      st.filter = '';
      if (v.orderLabel) st.order = v.defaultOrder ?? 'asc';
      st.index = 0;
      st.top = 0;
      storeOf(v);
      return setMessage('filter cleared');
    }
    if (input === 'o') {
      if (!v.orders) return setMessage(`${v.title} has one order: ${orderName(st.order)}`);
      st.order = st.order === 'asc' ? 'desc' : 'asc';
      st.index = 0;
      st.top = 0;
      storeOf(v);
      return setMessage(v.orderLabel?.(st.order, st.filter) ?? orderName(st.order));
    }
    if (input === '/') {
      if (!v.filterHint) return setMessage(`${v.title} has no filter`);
      return setMode({
        kind: 'input',
        label: `/ ${v.title} (${v.filterHint ?? 'text'})`,
        value: st.filter,
        back: { kind: 'list' },
        submit: (text) => {
          st.filter = text.trim();
          // A list ordered by something else when filtered (a search, by the matched text) starts at its A.
          if (v.orderLabel?.('asc', st.filter)) st.order = 'asc';
          else if (v.orderLabel) st.order = v.defaultOrder ?? 'asc';
          st.index = 0;
          st.top = 0;
          storeOf(v);
          setMessage(st.filter ? `filter: ${st.filter} (Esc clears)` : 'filter cleared');
        },
      });
    }
    const global = globalActions.find((a) => a.key === input);
    if (global) return global.run();
    const form = v.forms?.find((x) => x.key === input);
    if (form) return openForm(form, store.at(st.index));
    const action = v.actions?.find((a) => a.key === input);
    if (action) return startAction(v, action, store.at(st.index));
  };
  const handler = useRef(handle);
  handler.current = handle;
  useInput((input, key) => {
    // Keys typed faster than a frame arrive together ("jjjj", a paste, "text\r"): one at a time,
    // each on the state the one before left (the state is in refs, so no render is needed between
    // them). Text typed into a prompt or a form field goes in as one piece.
    if (input.length > 1 && !key.ctrl && !key.meta && /^[\x20-\x7e\r\n\t\x7f\b]+$/.test(input)) {
      const plain: Key = { ...key, return: false, escape: false, tab: false, backspace: false, delete: false, upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageUp: false, pageDown: false, shift: false };
      for (const piece of input.match(/[\x20-\x7e]+|[\r\n\t\x7f\b]/g) ?? []) {
        if (piece === '\r' || piece === '\n') handler.current('', { ...plain, return: true });
        else if (piece === '\t') handler.current('', { ...plain, tab: true });
        else if (piece === '\x7f' || piece === '\b') handler.current('', { ...plain, backspace: true });
        else {
          const mode = ui.current.mode;
          const typing = mode.kind === 'input' || (mode.kind === 'form' && !mode.form.spec.fields[mode.form.focus]?.choices);
          if (typing) handler.current(piece, plain);
          else for (const ch of piece) handler.current(ch, { ...plain, shift: ch !== ch.toLowerCase() });
        }
      }
      return;
    }
    handler.current(input, key);
  });

  // ---- render ----
  const width = size.columns;
  const u = ui.current;
  const view = views[u.active]!;
  const st = stateOf(view);
  const store = storeOf(view);
  const mode = u.mode;

  const tabs = (() => {
    const labels = views.map((v, i) => {
      const filter = stateOf(v).filter;
      return ` ${i < 9 ? i + 1 : '·'} ${v.title}${filter ? ` [${cell(filter, Math.min(filter.length, 12))}]` : ''} `;
    });
    // As many tabs as fit, the active one always among them.
    let from = 0;
    let to = labels.length;
    const len = (a: number, b: number) => labels.slice(a, b).join('').length;
    while (len(from, to) > width && to - from > 1) {
      if (u.active - from > to - 1 - u.active) from += 1;
      else to -= 1;
    }
    return (
      <Box>
        {from > 0 ? <Text color={c('gray')}>‹</Text> : null}
        {labels.slice(from, to).map((label, k) => {
          const i = from + k;
          return (
            <Text key={views[i]!.id} inverse={i === u.active} color={i === u.active ? undefined : c('cyan')}>
              {label}
            </Text>
          );
        })}
        {to < labels.length ? <Text color={c('gray')}>›</Text> : null}
      </Box>
    );
  })();

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
  const helpFor = (m: Mode): string[] => {
    const inDetail = m.kind === 'detail' || (m.kind !== 'list' && 'back' in m && m.back.kind === 'detail');
    const f = frame();
    const v = inDetail && f ? f.view : view;
    const k = (keys: string, what: string) => `  ${keys.padEnd(22)}${what}`;
    return [
      inDetail ? `Keys of the detail (${v.title})` : `Keys of ${v.title}`,
      ...(inDetail
        ? [
            k('j / k, arrows', 'move the cursor line by line'),
            k('PgUp / PgDn, g / G', 'page, first / last line'),
            k('Tab / Shift-Tab', 'next / previous line naming a record'),
            k('Enter', 'open the record whose id is on the line'),
            k('Backspace, <-', 'back along the path'),
            k('Esc, q', 'back to the list'),
          ]
        : [
            k('j / k, arrows', 'move (keys typed together each count)'),
            k('PgUp / PgDn, ^u / ^d', 'page'),
            k('g / G, Home / End', 'first / last row of the whole list'),
            k('Enter', 'detail'),
            k('/', `filter: ${v.filterHint ?? 'text'}`),
            k('Esc', 'clear this view\'s filter'),
            ...(v.orders ? [k('o', 'flip the order: newest first / oldest first')] : []),
            k('1-9, Tab, <- ->', 'switch view'),
            k('q', 'quit'),
          ]),
      k('+', 'advance the clock (30s, 6m, 2h)'),
      ...(inDetail ? [] : [k('R', 'reset the platform (asks first)'), ...(onSwitch ? [k('P', 'switch to another platform')] : [])]),
      ...(v.forms ?? []).map((x) => k(x.key, x.title)),
      ...(v.actions ?? []).map((a) => k(a.key, a.label)),
      k('?', 'this help (any key closes it)'),
    ];
  };
  if (mode.kind === 'help') {
    const lines = helpFor(mode.back);
    body = (
      <Box flexDirection="column" height={listHeight + 1}>
        {lines.slice(0, listHeight + 1).map((line, i) => (
          <Text key={i} bold={i === 0}>
            {cell(line, width)}
          </Text>
        ))}
      </Box>
    );
  } else if (mode.kind === 'form' || (mode.kind !== 'list' && mode.kind !== 'detail' && 'back' in mode && mode.back.kind === 'form')) {
    const form = (mode.kind === 'form' ? mode : (mode as { back: Extract<Mode, { kind: 'form' }> }).back).form;
    const labelWidth = Math.max(...form.spec.fields.map((f) => f.label.length)) + 2;
    // Values as wide as the longest one (ids are long), the rest of the line for hints and errors.
    const valueWidth = Math.max(12, Math.min(width - labelWidth - 16, Math.max(24, ...form.spec.fields.map((f) => (form.values[f.name] ?? '').length + 6))));
    body = (
      <Box flexDirection="column" height={listHeight + 1}>
        <Text bold>{cell(`${form.spec.title}  (Tab/arrows move, Enter next/submit, Esc cancel${form.spec.fields.some((f) => f.choices) ? ', Space/<-/-> choose' : ''})`, width)}</Text>
        {form.spec.fields.map((f, i) => {
          const value = form.values[f.name] ?? '';
          const focused = i === form.focus;
          const shown = f.choices ? `< ${value} >` : `${value}${focused ? '_' : ''}`;
          const error = form.errors[f.name];
          return (
            <Box key={f.name}>
              <Text inverse={focused}>{cell(`${focused ? '>' : ' '} ${f.label}`, labelWidth)}</Text>
              <Text>{cell(` ${shown || (focused ? '' : (f.placeholder ?? ''))}`, valueWidth)}</Text>
              <Text color={c(error ? 'red' : 'gray')}>{cell(error ? ` ! ${error}` : f.hint ? ` ${f.hint}` : '', Math.max(0, width - labelWidth - valueWidth))}</Text>
            </Box>
          );
        })}
        <Text color={c('gray')}>{cell(form.busy ? '  sending...' : '  Enter on the last field sends it to the sandbox', width)}</Text>
      </Box>
    );
  } else if (mode.kind === 'detail' || (mode.kind !== 'list' && 'back' in mode && mode.back.kind === 'detail' && frame())) {
    const f = frame()!;
    const lines = detailLines(f);
    const cursor = Math.min(f.cursor, lines.length - 1);
    const top = Math.max(0, Math.min(cursor - Math.floor(listHeight / 2), lines.length - listHeight));
    const path = u.trail.map((t) => t.view.title).join(' > ');
    body = (
      <Box flexDirection="column" height={listHeight + 1}>
        <Text bold>{cell(`${path}: ${f.view.key(f.row)}  (Enter opens an id, Backspace back, Esc list)`, width)}</Text>
        {lines.slice(top, top + listHeight).map((line, i) => {
          const at = top + i;
          const link = ID_IN_TEXT.test(line.text);
          return (
            <Text key={at} inverse={at === cursor} bold={line.title} color={line.title ? c('cyan') : link && at !== cursor ? c('blue') : undefined}>
              {cell(at === cursor ? (line.text.startsWith(' ') ? `>${line.text.slice(1)}` : `>${line.text}`) : line.text, width)}
            </Text>
          );
        })}
      </Box>
    );
  } else {
    const top = Math.min(st.top, Math.max(0, store.length - listHeight));
    const positions = Array.from({ length: Math.max(0, Math.min(listHeight, store.length - top)) }, (_, i) => top + i);
    const visible = positions.map((p) => ({ p, row: store.at(p) }));
    const values = visible.map(({ row }) => (row ? view.columns.map((column) => column.value(row, client)) : undefined));
    const natural = view.columns.map((column, k) =>
      Math.min(60, Math.max(column.header.length, ...values.map((vals) => (vals ? vals[k]!.length : 0)))),
    );
    const widths = fitColumns(natural, view.columns.map((column) => column.width === 0), width);
    const header = `  ${view.columns.map((column, k) => cell(column.header, widths[k]!, column.align)).join(' ')}`;
    // A view that needs a filter first says so (its load refuses without one): not an error.
    const empty = store.error ? (store.error.startsWith('type / ') ? store.error : `error: ${store.error}`) : store.loaded ? (st.filter ? `nothing matches "${st.filter}" (Esc clears)` : 'nothing yet') : 'loading...';
    body = (
      <Box flexDirection="column" height={listHeight + 1}>
        <Text bold>{cell(header, width)}</Text>
        {visible.length === 0 ? <Text color={c(store.error ? 'red' : 'gray')}>{cell(`  ${empty}`, width)}</Text> : null}
        {visible.map(({ p, row }, i) => {
          const isSelected = p === st.index;
          if (!row) {
            return (
              <Text key={`gap-${p}`} inverse={isSelected} color={c('gray')}>
                {cell(`${isSelected ? '> ' : '  '}… row ${p + 1} loading`, width)}
              </Text>
            );
          }
          return (
            <Box key={view.key(row)}>
              <Text inverse={isSelected}>{isSelected ? '> ' : '  '}</Text>
              {view.columns.map((column, k) => (
                <Text key={k} inverse={isSelected} color={column.color ? c(column.color(row)) : undefined}>
                  {cell(values[i]![k]!, widths[k]!, column.align) + (k < view.columns.length - 1 ? ' ' : '')}
                </Text>
              ))}
            </Box>
          );
        })}
      </Box>
    );
  }

  const countText = (() => {
    const total = store.total === undefined ? store.length : store.total;
    const position = store.length ? st.index + 1 : 0;
    const of = `${total.toLocaleString('en-US')}${store.totalCapped ? '+' : ''}`;
    return `${view.title} ${position.toLocaleString('en-US')}/${of} ${view.orderLabel?.(st.order, st.filter) ?? orderName(st.order)}${st.filter ? ` [/${cell(st.filter, Math.min(st.filter.length, 24))}]` : ''}`;
  })();

  const footer =
    mode.kind === 'input' ? (
      <Text color={c('yellow')}>{cell(`${cell(mode.label, Math.max(10, Math.min(mode.label.length, width - mode.value.length - 4)))}: ${mode.value}_`, width)}</Text>
    ) : mode.kind === 'confirm' ? (
      <Text color={c('red')}>{cell(mode.label, width)}</Text>
    ) : (
      <Text>{cell(`${mode.kind === 'list' ? countText : ''}${mode.kind === 'list' ? ' | ' : ''}${u.message}`, width)}</Text>
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
            <Text key={i}>{cell(color ? line : stripAnsi(line), width)}</Text>
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
