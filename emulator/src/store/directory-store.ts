import type Database from 'better-sqlite3';
import { Statements } from './statements.ts';
import { TableWrites, type WatchedTable } from './table-writes.ts';
import type {
  ApiKey,
  Mailbox,
  Owner,
  Scope,
  StoredKeySecret,
  Suppression,
} from '../domain/types.ts';

interface OwnerRow {
  id: string;
  name: string;
  disabled: number;
  created_at: string;
}
interface MailboxRow {
  address: string;
  domain: string;
  display_name: string | null;
}
interface KeyRow {
  id: string;
  owner_id: string;
  name: string;
  scope: Scope;
  scope_domain: string | null;
  disabled: number;
  created_at: string;
  lookup: string;
  secret_hash: Buffer;
}

const toOwner = (r: OwnerRow): Owner => ({
  id: r.id,
  name: r.name,
  disabled: r.disabled === 1,
  createdAt: r.created_at,
});
const toMailbox = (r: MailboxRow): Mailbox => ({
  address: r.address,
  domain: r.domain,
  displayName: r.display_name,
});

/**
 * The tables a key's access is decided from (§5, http/auth.ts): the key and the mailboxes it
 * lists, its owner, the owner's grants and the granted mailboxes. Every column of each, so a
 * decision kept while none is written is the one the data gives now.
 */
export const ACCESS_TABLES: readonly WatchedTable[] = [
  { table: 'api_keys' },
  { table: 'api_key_mailboxes' },
  { table: 'owners' },
  { table: 'grants' },
  { table: 'mailboxes' },
];

/**
 * Owners, domains, mailboxes, grants, API keys and suppressions: who may touch what.
 * Plain values in and out; callers validate before they write.
 */
export class DirectoryStore {
  private readonly sql: Statements;
  /**
   * Changes with every write to ACCESS_TABLES, however written (store methods, cascades, the
   * control plane, reset), and with nothing else: a stored or changed email leaves it, so the
   * access decided for a key is kept across them (issue 31 item 1).
   */
  readonly accessWrites: TableWrites;

  constructor(private readonly db: Database.Database) {
    this.sql = new Statements(db);
    this.accessWrites = new TableWrites(db, 'access', ACCESS_TABLES);
  }

  createOwner(owner: Owner): Owner {
    this.sql
      .get('INSERT INTO owners (id, name, disabled, created_at) VALUES (?, ?, ?, ?)')
      .run(owner.id, owner.name, owner.disabled ? 1 : 0, owner.createdAt);
    return owner;
  }

  getOwner(id: string): Owner | undefined {
    const row = this.sql.get('SELECT * FROM owners WHERE id = ?').get(id) as OwnerRow | undefined;
    return row && toOwner(row);
  }

  listOwners(): Owner[] {
    return (this.sql.get('SELECT * FROM owners ORDER BY created_at, id').all() as OwnerRow[]).map(
      toOwner,
    );
  }

  setOwnerDisabled(id: string, disabled: boolean): Owner | undefined {
    this.sql.get('UPDATE owners SET disabled = ? WHERE id = ?').run(disabled ? 1 : 0, id);
    return this.getOwner(id);
  }

  ensureDomain(name: string): void {
    this.sql.get('INSERT OR IGNORE INTO domains (name) VALUES (?)').run(name);
  }

  /** Whether the domain exists: one lookup, where listing every domain grows with them. */
  hasDomain(name: string): boolean {
    return this.sql.get('SELECT 1 FROM domains WHERE name = ?').get(name) !== undefined;
  }

  listDomains(): string[] {
    return (this.sql.get('SELECT name FROM domains ORDER BY name').all() as { name: string }[]).map(
      (r) => r.name,
    );
  }

  createMailbox(mailbox: Mailbox): Mailbox {
    this.ensureDomain(mailbox.domain);
    this.sql
      .get('INSERT INTO mailboxes (address, domain, display_name) VALUES (?, ?, ?)')
      .run(mailbox.address, mailbox.domain, mailbox.displayName);
    return mailbox;
  }

  getMailbox(address: string): Mailbox | undefined {
    const row = this.sql.get('SELECT * FROM mailboxes WHERE address = ?').get(address) as
      MailboxRow | undefined;
    return row && toMailbox(row);
  }

  listMailboxes(): Mailbox[] {
    return (this.sql.get('SELECT * FROM mailboxes ORDER BY address').all() as MailboxRow[]).map(
      toMailbox,
    );
  }

  grant(ownerId: string, mailbox: string): void {
    this.sql
      .get('INSERT OR IGNORE INTO grants (owner_id, mailbox) VALUES (?, ?)')
      .run(ownerId, mailbox);
  }

  /** Returns whether a grant was removed. */
  revoke(ownerId: string, mailbox: string): boolean {
    return (
      this.sql.get('DELETE FROM grants WHERE owner_id = ? AND mailbox = ?').run(ownerId, mailbox)
        .changes > 0
    );
  }

  /** The owner's granted mailboxes, ordered by address. */
  grantedMailboxes(ownerId: string): Mailbox[] {
    return (
      this.sql
        .get(
          `SELECT m.* FROM grants g JOIN mailboxes m ON m.address = g.mailbox
           WHERE g.owner_id = ? ORDER BY m.address`,
        )
        .all(ownerId) as MailboxRow[]
    ).map(toMailbox);
  }

  createKey(key: ApiKey, secret: StoredKeySecret): ApiKey {
    this.db.transaction(() => {
      this.sql
        .get(
          `INSERT INTO api_keys (id, owner_id, name, scope, scope_domain, lookup, secret_hash, disabled, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          key.id,
          key.ownerId,
          key.name,
          key.scope,
          key.domain,
          secret.lookup,
          secret.secretHash,
          key.disabled ? 1 : 0,
          key.createdAt,
        );
      const insert = this.sql.get('INSERT INTO api_key_mailboxes (key_id, mailbox) VALUES (?, ?)');
      for (const mailbox of key.mailboxes) insert.run(key.id, mailbox);
    })();
    return key;
  }

  /** The key with this public lookup part and its stored hash, for constant-time comparison. */
  findKeyByLookup(lookup: string): { key: ApiKey; secretHash: Buffer } | undefined {
    const row = this.sql.get('SELECT * FROM api_keys WHERE lookup = ?').get(lookup) as
      KeyRow | undefined;
    return row && { key: this.toKey(row), secretHash: row.secret_hash };
  }

  getKey(id: string): ApiKey | undefined {
    const row = this.sql.get('SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
    return row && this.toKey(row);
  }

  listKeys(): ApiKey[] {
    return (this.sql.get('SELECT * FROM api_keys ORDER BY created_at, id').all() as KeyRow[]).map(
      (r) => this.toKey(r),
    );
  }

  setKeyDisabled(id: string, disabled: boolean): ApiKey | undefined {
    this.sql.get('UPDATE api_keys SET disabled = ? WHERE id = ?').run(disabled ? 1 : 0, id);
    return this.getKey(id);
  }

  addSuppression(suppression: Suppression): Suppression {
    this.sql
      .get('INSERT OR REPLACE INTO suppressions (address, reason, created_at) VALUES (?, ?, ?)')
      .run(suppression.address, suppression.reason, suppression.createdAt);
    return suppression;
  }

  removeSuppression(address: string): boolean {
    return this.sql.get('DELETE FROM suppressions WHERE address = ?').run(address).changes > 0;
  }

  listSuppressions(): Suppression[] {
    return (
      this.sql.get('SELECT * FROM suppressions ORDER BY address').all() as {
        address: string;
        reason: string;
        created_at: string;
      }[]
    ).map((r) => ({ address: r.address, reason: r.reason, createdAt: r.created_at }));
  }

  isSuppressed(address: string): boolean {
    return this.sql.get('SELECT 1 FROM suppressions WHERE address = ?').get(address) !== undefined;
  }

  private toKey(row: KeyRow): ApiKey {
    const mailboxes = (
      this.sql
        .get('SELECT mailbox FROM api_key_mailboxes WHERE key_id = ? ORDER BY mailbox')
        .all(row.id) as { mailbox: string }[]
    ).map((r) => r.mailbox);
    return {
      id: row.id,
      ownerId: row.owner_id,
      name: row.name,
      scope: row.scope,
      domain: row.scope_domain,
      mailboxes,
      disabled: row.disabled === 1,
      createdAt: row.created_at,
    };
  }
}
