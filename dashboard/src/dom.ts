// A tiny element builder: the dashboard is small enough that plain DOM calls
// stay readable, and text always goes in as text (never parsed as HTML).
export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: any) => void;
export type Attrs = Record<string, string | number | boolean | null | undefined | Handler>;

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

function apply(el: Element, attrs: Attrs | undefined): void {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'class') el.setAttribute('class', String(value));
    else el.setAttribute(name, value === true ? '' : String(value));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

const THAI = /[\u0E00-\u0E7F]/;

/** Text in its language, so screen readers pronounce Thai names as Thai. */
export function text(value: string, tag: 'span' | 'strong' = 'span'): HTMLElement {
  return h(tag, THAI.test(value) ? { lang: 'th' } : {}, value);
}
