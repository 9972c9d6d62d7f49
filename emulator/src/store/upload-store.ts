import type Database from 'better-sqlite3';
import type { BlobStore } from './blob-store.ts';
import { Statements } from './statements.ts';

export interface Upload {
  id: string;
  ownerId: string;
  name: string;
  contentType: string;
  size: number;
  urlToken: string;
  createdAt: string;
}

interface UploadRow {
  id: string;
  owner_id: string;
  name: string;
  content_type: string;
  size: number;
  url_token: string;
  created_at: string;
}

const toUpload = (r: UploadRow): Upload => ({
  id: r.id,
  ownerId: r.owner_id,
  name: r.name,
  contentType: r.content_type,
  size: r.size,
  urlToken: r.url_token,
  createdAt: r.created_at,
});

/** Uploaded files (§2.4): metadata here, bytes in the blob store. */
export class UploadStore {
  private readonly sql: Statements;

  constructor(
    db: Database.Database,
    private readonly blobs: BlobStore,
  ) {
    this.sql = new Statements(db);
  }

  create(upload: Upload, bytes: Uint8Array): Upload {
    const sha256 = this.blobs.put(bytes);
    this.sql
      .get(
        `INSERT INTO uploads (id, owner_id, name, content_type, size, blob_sha256, url_token, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        upload.id,
        upload.ownerId,
        upload.name,
        upload.contentType,
        upload.size,
        sha256,
        upload.urlToken,
        upload.createdAt,
      );
    return upload;
  }

  get(id: string): { upload: Upload; bytes: Buffer } | undefined {
    const row = this.sql
      .get(
        'SELECT u.*, b.bytes FROM uploads u JOIN blobs b ON b.sha256 = u.blob_sha256 WHERE u.id = ?',
      )
      .get(id) as (UploadRow & { bytes: Buffer }) | undefined;
    return row && { upload: toUpload(row), bytes: row.bytes };
  }

  byToken(token: string): { upload: Upload; bytes: Buffer } | undefined {
    const row = this.sql
      .get(
        'SELECT u.*, b.bytes FROM uploads u JOIN blobs b ON b.sha256 = u.blob_sha256 WHERE u.url_token = ?',
      )
      .get(token) as (UploadRow & { bytes: Buffer }) | undefined;
    return row && { upload: toUpload(row), bytes: row.bytes };
  }

  count(): number {
    return (this.sql.get('SELECT count(*) AS n FROM uploads').get() as { n: number }).n;
  }
}
