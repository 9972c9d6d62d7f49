import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { Statements } from './statements.ts';

/** Content-addressed file bytes: every stored file lives here once, however often it is used (§2.4). */
export class BlobStore {
  private readonly sql: Statements;

  constructor(db: Database.Database) {
    this.sql = new Statements(db);
  }

  /** Stores the bytes unless already stored; returns their SHA-256. */
  put(bytes: Uint8Array): string {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    this.sql
      .get('INSERT OR IGNORE INTO blobs (sha256, size, bytes) VALUES (?, ?, ?)')
      .run(sha256, bytes.length, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return sha256;
  }

  /** How many distinct blobs are stored and their total bytes. */
  stats(): { count: number; bytes: number } {
    return this.sql
      .get('SELECT count(*) AS count, coalesce(sum(size), 0) AS bytes FROM blobs')
      .get() as {
      count: number;
      bytes: number;
    };
  }
}
