// Building blocks shared by the pages: tables, times, empty states, paging.
import { h, type Child } from './dom.js';
import { formatTime } from './format.js';
import { t } from './i18n/index.js';

export interface Column {
  label: string;
  /** Right-aligned numbers. */
  numeric?: boolean;
}

export function dataTable(caption: string, columns: Column[], rows: Child[][], opts: { captionHidden?: boolean } = {}): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', opts.captionHidden ? { class: 'visually-hidden' } : {}, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : null }, c.label)))),
      h(
        'tbody',
        {},
        rows.map((cells) => h('tr', {}, cells.map((cell, i) => h('td', { class: columns[i]?.numeric ? 'num' : null }, cell)))),
      ),
    ),
  );
}

export function time(iso: string | null | undefined): Child {
  return iso ? h('time', { datetime: iso }, formatTime(iso)) : h('span', { class: 'muted' }, t().ui.none);
}

export function empty(message: string): HTMLElement {
  return h('p', { class: 'empty' }, message);
}

/** `message` is the whole sentence ("Loading accounts…"). */
export function loading(message: string): HTMLElement {
  return h('p', { class: 'loading' }, message);
}

export function badge(label: string, tone: 'ok' | 'bad' | 'warn' | 'neutral'): HTMLElement {
  return h('span', { class: `badge ${tone}` }, label);
}

/** Newer/older buttons over a stack of cursors (the API pages forward only). */
export class CursorPager {
  private stack: (string | null)[] = [null];

  get after(): string | null {
    return this.stack[this.stack.length - 1] ?? null;
  }

  get page(): number {
    return this.stack.length;
  }

  reset(): void {
    this.stack = [null];
  }

  controls(label: string, next: string | null, onMove: () => void): HTMLElement {
    return h(
      'nav',
      { class: 'pager', 'aria-label': t().ui.pages(label) },
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          disabled: this.stack.length <= 1,
          onclick: () => {
            this.stack.pop();
            onMove();
          },
        },
        t().ui.newer,
      ),
      h('span', { class: 'muted' }, t().ui.page(this.page)),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          disabled: !next,
          onclick: () => {
            if (!next) return;
            this.stack.push(next);
            onMove();
          },
        },
        t().ui.older,
      ),
    );
  }
}
