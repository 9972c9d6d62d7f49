import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Address } from '../domain/types.ts';

/** `Name <address>`, or the address alone. */
export const addressText = (a: Address) => (a.name ? `${a.name} <${a.address}>` : a.address);

export const addressList = (list: Address[]) => list.map(addressText).join(', ');

/** An ISO instant shown in UTC, to the second, in a <time> a reader can copy exactly. */
export const when = (iso: string | null) =>
  iso === null
    ? '—'
    : html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>`;

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Path segment encoding for addresses and ids in links. */
export const seg = (value: string) => encodeURIComponent(value);

/**
 * Where an action returns: a same-origin path the form named, never another site
 * (`//evil.example` and `https://…` are refused), else `fallback`.
 */
export function backTo(raw: unknown, fallback: string): string {
  return typeof raw === 'string' && /^\/(?![/\\])/.test(raw) ? raw : fallback;
}

/** Redirects after an action with its outcome shown on the page it returns to. */
export function afterAction(
  c: Context,
  back: string,
  outcome: { ok: true; notice: string } | { ok: false; message: string },
) {
  const url = new URL(back, 'http://dashboard.invalid');
  url.searchParams.delete('notice');
  url.searchParams.delete('error');
  url.searchParams.set(
    outcome.ok ? 'notice' : 'error',
    outcome.ok ? outcome.notice : outcome.message,
  );
  return c.redirect(`${url.pathname}${url.search}`, 303);
}

/** A small POST form with one button; `async` ones are sent by live.js without leaving the page. */
export function actionButton(
  action: string,
  label: string,
  back: string,
  options: { async?: boolean; danger?: boolean; name?: string } = {},
) {
  return html`<form
    method="post"
    action="${action}"
    class="inline"
    ${options.async ? html`data-async` : ''}
  >
    <input type="hidden" name="back" value="${back}" />
    <button
      type="submit"
      class="${options.danger ? 'danger' : ''}"
      ${options.name ? html`name="${options.name}"` : ''}
    >
      ${label}
    </button>
  </form>`;
}

/** Form fields as strings: the first value of each, trimmed; absent or empty is undefined. */
export async function formFields(c: Context): Promise<Record<string, string | string[]>> {
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) out[name] = value.filter((v): v is string => typeof v === 'string');
    else if (typeof value === 'string') out[name] = value;
  }
  return out;
}

export function field(fields: Record<string, string | string[]>, name: string): string | undefined {
  const value = fields[name];
  const first = Array.isArray(value) ? value[0] : value;
  const trimmed = first?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

export function fieldList(fields: Record<string, string | string[]>, name: string): string[] {
  const value = fields[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all
    .flatMap((v) => v.split(/[\s,]+/))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}
