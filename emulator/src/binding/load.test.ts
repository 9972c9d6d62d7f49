import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../package-root.ts';
import {
  BindingError,
  DEFAULT_BINDING_PATH,
  bindingFrom,
  isDefaultBinding,
  loadBindingFile,
  loadDefaultBinding,
} from './load.ts';
import { folderMap } from './folders.ts';

const VARIANTS = packagePath('tests/variants/bindings');

function refusal(document: unknown): string {
  try {
    bindingFrom(document, 'my.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(BindingError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('loading a binding', () => {
  it('reads spec/bindings/decisions.yaml as the default binding, which maps nothing', () => {
    const binding = loadBindingFile(DEFAULT_BINDING_PATH);
    expect(binding.list.array).toBe('emails');
    expect(isDefaultBinding(binding)).toBe(true);
    expect(isDefaultBinding(bindingFrom({ binding: 1, name: 'renamed only' }, 'x'))).toBe(true);
  });

  it('takes a binding that lists the default entries in another order as the default', () => {
    const reordered = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reordered)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, reordered(v)]),
            )
          : value;
    const binding = loadBindingFile(DEFAULT_BINDING_PATH);
    const shuffled = reordered(binding) as typeof binding;
    expect(Object.keys(shuffled)).not.toEqual(Object.keys(binding));
    expect(isDefaultBinding(shuffled)).toBe(true);
    expect(isDefaultBinding({ ...shuffled, list: { ...shuffled.list, array: 'data' } })).toBe(
      false,
    );
  });

  it('merges a partial file over the default, entry by entry', () => {
    const binding = bindingFrom(
      { binding: 1, list: { array: 'data' }, operations: { sendEmail: { status: 200 } } },
      'partial.yaml',
    );
    expect(binding.list.array).toBe('data');
    expect(binding.email.senderAddress).toBe('from.address');
    expect(binding.operations.sendEmail).toEqual({
      status: 200,
      answer: 'email',
      emailId: 'body:/id',
    });
    expect(isDefaultBinding(binding)).toBe(false);
  });

  it('loads every renaming variant of tests/variants/bindings, none of them the default', () => {
    const files = readdirSync(VARIANTS).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const file of files)
      expect(isDefaultBinding(loadBindingFile(join(VARIANTS, file)))).toBe(false);
  });

  it('accepts JSON as well as YAML', () => {
    const dir = mkdtempSync(join(tmpdir(), 'binding-'));
    const file = join(dir, 'b.json');
    writeFileSync(file, JSON.stringify({ binding: 1, list: { array: 'items' } }));
    expect(loadBindingFile(file).list.array).toBe('items');
  });

  it('names the file and the entry the schema refuses', () => {
    expect(refusal({ binding: 1, list: { array: 'a.b' } })).toMatch(/^my\.yaml: list\.array: /);
    expect(refusal({ binding: 1, email: { sender: 'x' } })).toMatch(
      /^my\.yaml: email: .*\(sender\)/,
    );
    expect(refusal({ binding: 2 })).toMatch(/^my\.yaml: binding: /);
  });

  it('names an unreadable file', () => {
    expect(() => loadBindingFile('/nonexistent/b.yaml')).toThrow(
      /\/nonexistent\/b\.yaml: cannot read/,
    );
  });

  it('refuses folders the store cannot hold: more than five, sent or received not listed, received not inbox', () => {
    const six = ['inbox', 'a', 'b', 'c', 'd', 'trash'];
    expect(refusal({ binding: 1, folders: { names: six, sent: 'a', received: 'inbox' } })).toMatch(
      /folders\.names: 6 folders.*at most 5/,
    );
    expect(refusal({ binding: 1, folders: { names: ['inbox', 'trash'] } })).toMatch(
      /folders\.sent: "sent" is not one of folders\.names/,
    );
    expect(
      refusal({
        binding: 1,
        folders: { names: ['inbox', 'out', 'trash', 'new'], sent: 'out', received: 'new' },
      }),
    ).toMatch(/folders\.received: .*must be inbox/);
  });

  it('refuses paths of one record that collide', () => {
    expect(
      refusal({ binding: 1, email: { senderAddress: 'from', senderName: 'from.name' } }),
    ).toMatch(/email\.senderName: "from\.name" collides with email\.senderAddress \("from"\)/);
    expect(refusal({ binding: 1, email: { subject: 'id' } })).toMatch(/collides/);
    expect(
      refusal({ binding: 1, email: { toAddress: 'people[].address', ccAddress: 'people[].cc' } }),
    ).toMatch(/puts cc into the array that holds to/);
    expect(refusal({ binding: 1, webhookData: { subject: 'mailbox' } })).toMatch(
      /webhookData.*collides/,
    );
  });

  it('maps folder names onto the five stored ones: inbox, trash, the sent folder, then archive and spam in order', () => {
    const map = folderMap({
      names: ['inbox', 'sentitems', 'archive', 'junkemail', 'trash'],
      sent: 'sentitems',
      received: 'inbox',
    });
    expect(Object.fromEntries(map.toInternal)).toEqual({
      inbox: 'inbox',
      sentitems: 'sent',
      archive: 'archive',
      junkemail: 'spam',
      trash: 'trash',
    });
    expect(loadDefaultBinding().folders.names).toEqual([
      'inbox',
      'sent',
      'archive',
      'spam',
      'trash',
    ]);
  });
});
