import type Database from 'better-sqlite3';
import { openDatabase, type OpenOptions } from './database.ts';
import { BlobStore } from './blob-store.ts';
import { DataVersion } from './data-version.ts';
import { DirectoryStore } from './directory-store.ts';
import { EmailStore } from './email-store.ts';
import { OutboxStore } from './outbox-store.ts';
import { SettingsStore } from './settings-store.ts';
import { TenantStore } from './tenant-store.ts';
import { UploadStore } from './upload-store.ts';
import { TableWrites } from './table-writes.ts';
import { WEBHOOK_AUDIENCE_TABLES, WebhookStore } from './webhook-store.ts';

/** The emulator's one store: a better-sqlite3 database and the repositories over it. */
export class Store {
  readonly blobs: BlobStore;
  readonly directory: DirectoryStore;
  readonly emails: EmailStore;
  readonly outbox: OutboxStore;
  readonly settings: SettingsStore;
  readonly tenants: TenantStore;
  readonly uploads: UploadStore;
  readonly webhooks: WebhookStore;
  /** Changes with any write: what derived values (a key's access, a page) are cached against. */
  readonly version: DataVersion;
  /**
   * Changes only with writes to what decides which webhooks hear of a mailbox's mail
   * (WEBHOOK_AUDIENCE_TABLES), so the dispatcher keeps that decision across the messages
   * stored between such writes.
   */
  readonly webhookAudience: TableWrites;

  constructor(readonly db: Database.Database) {
    this.inTransaction = db.transaction((work: () => unknown) => work());
    this.version = new DataVersion(db);
    this.webhookAudience = new TableWrites(db, 'webhook_audience', WEBHOOK_AUDIENCE_TABLES);
    this.blobs = new BlobStore(db);
    this.directory = new DirectoryStore(db);
    this.emails = new EmailStore(db, this.blobs, this.version);
    this.outbox = new OutboxStore(db);
    this.settings = new SettingsStore(db);
    this.tenants = new TenantStore(db);
    this.uploads = new UploadStore(db, this.blobs);
    this.webhooks = new WebhookStore(db);
    this.emails.refreshSummaries(this.settings);
  }

  /**
   * better-sqlite3's transaction function, made once: it runs the work it is given, so every
   * `transaction` call shares it, where each made its own (a wrapper with its four variants,
   * for every message SMTP stores and every group of them; issue 31 item 2). Nested, it is a
   * savepoint.
   */
  private readonly inTransaction: (work: () => unknown) => unknown;

  /** Runs `work` in one transaction: all of it is written, or none. */
  transaction<T>(work: () => T): T {
    return this.inTransaction(work) as T;
  }

  /** Empties every table of data (the control plane's reset); the schema and settings stay. */
  reset(): void {
    this.transaction(() => {
      for (const table of [
        'delivery_attempts',
        'deliveries',
        'webhook_mailboxes',
        'webhooks',
        'emails_fts',
        'message_attachments',
        'email_contents',
        'emails',
        'uploads',
        'blobs',
        'api_key_mailboxes',
        'api_keys',
        'grants',
        'mailboxes',
        'domains',
        'owners',
        'suppressions',
        'outbox',
        'tenants',
      ]) {
        this.db.exec(`DELETE FROM ${table}`);
      }
    });
  }

  close(): void {
    this.db.close();
  }
}

export function openStore(path = ':memory:', options: OpenOptions = {}): Store {
  return new Store(openDatabase(path, options));
}
