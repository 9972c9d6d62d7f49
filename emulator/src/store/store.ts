import type Database from 'better-sqlite3';
import { openDatabase } from './database.ts';
import { DirectoryStore } from './directory-store.ts';
import { EmailStore } from './email-store.ts';

/** The emulator's one store: a better-sqlite3 database and the repositories over it. */
export class Store {
  readonly directory: DirectoryStore;
  readonly emails: EmailStore;

  constructor(readonly db: Database.Database) {
    this.directory = new DirectoryStore(db);
    this.emails = new EmailStore(db);
  }

  /** Runs `work` in one transaction: all of it is written, or none. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  /** Empties every table (the control plane's reset); the schema stays. */
  reset(): void {
    this.transaction(() => {
      for (const table of [
        'emails_fts',
        'message_attachments',
        'email_contents',
        'emails',
        'blobs',
        'api_key_mailboxes',
        'api_keys',
        'grants',
        'mailboxes',
        'domains',
        'owners',
        'suppressions',
      ]) {
        this.db.exec(`DELETE FROM ${table}`);
      }
    });
  }

  close(): void {
    this.db.close();
  }
}

export function openStore(path = ':memory:'): Store {
  return new Store(openDatabase(path));
}
