import type Database from 'better-sqlite3';
import { Statements } from './statements.ts';

/** A private world (issue 30 item 1): an owner and the mailboxes of a domain of its own. */
export interface Tenant {
  id: string;
  name: string;
  ownerId: string;
  domain: string;
  createdAt: string;
}

interface TenantRow {
  id: string;
  name: string;
  owner_id: string;
  domain: string;
  created_at: string;
}

const toTenant = (r: TenantRow): Tenant => ({
  id: r.id,
  name: r.name,
  ownerId: r.owner_id,
  domain: r.domain,
  createdAt: r.created_at,
});

/** The mailboxes of one tenant's domain, as SQL, for the deletes below. */
const TENANT_MAILBOXES = 'SELECT address FROM mailboxes WHERE domain = @domain';

/**
 * Tenants, and the one transaction that removes everything a tenant made: its mail (and index
 * entries), what it sent to the outbox, its owner (whose keys, grants, uploads and webhooks,
 * with their deliveries, go by cascade), its mailboxes, its domain, and the files nothing else
 * uses any more.
 */
export class TenantStore {
  private readonly sql: Statements;

  constructor(private readonly db: Database.Database) {
    this.sql = new Statements(db);
  }

  add(tenant: Tenant): Tenant {
    this.sql
      .get(
        'INSERT INTO tenants (id, name, owner_id, domain, created_at) VALUES (@id, @name, @ownerId, @domain, @createdAt)',
      )
      .run(tenant);
    return tenant;
  }

  get(id: string): Tenant | undefined {
    const row = this.sql.get('SELECT * FROM tenants WHERE id = ?').get(id) as TenantRow | undefined;
    return row && toTenant(row);
  }

  /** Oldest first. */
  list(): Tenant[] {
    return (this.sql.get('SELECT * FROM tenants ORDER BY created_at, id').all() as TenantRow[]).map(
      toTenant,
    );
  }

  /** The tenant whose domain this is, if any (a mailbox's world). */
  idOfDomain(domain: string): string | undefined {
    const row = this.sql.get('SELECT id FROM tenants WHERE domain = ?').get(domain) as
      { id: string } | undefined;
    return row?.id;
  }

  /** Removes the tenant and all it made, in one transaction; false when there was none. */
  delete(id: string): boolean {
    return this.db.transaction(() => {
      const tenant = this.get(id);
      if (tenant === undefined) return false;
      const params = { domain: tenant.domain, ownerId: tenant.ownerId };
      // Files its mail or uploads used, to drop afterwards if nothing else holds them.
      const blobs = this.sql
        .get(
          `SELECT blob_sha256 AS sha256 FROM message_attachments
             WHERE email_id IN (SELECT id FROM emails WHERE mailbox IN (${TENANT_MAILBOXES}))
           UNION SELECT blob_sha256 FROM uploads WHERE owner_id = @ownerId`,
        )
        .all(params) as { sha256: string }[];
      this.sql
        .get(
          `DELETE FROM emails_fts WHERE rowid IN
             (SELECT seq FROM emails WHERE mailbox IN (${TENANT_MAILBOXES}))`,
        )
        .run(params);
      this.sql.get(`DELETE FROM emails WHERE mailbox IN (${TENANT_MAILBOXES})`).run(params);
      this.sql.get(`DELETE FROM outbox WHERE envelope_from IN (${TENANT_MAILBOXES})`).run(params);
      // Keys of other owners that name one of its mailboxes keep the name, as after any delete.
      this.sql.get('DELETE FROM owners WHERE id = @ownerId').run(params);
      this.sql.get(`DELETE FROM mailboxes WHERE domain = @domain`).run(params);
      this.sql
        .get(
          `DELETE FROM domains WHERE name = @domain
             AND NOT EXISTS (SELECT 1 FROM api_keys WHERE scope_domain = @domain)
             AND NOT EXISTS (SELECT 1 FROM webhooks WHERE scope_domain = @domain)`,
        )
        .run(params);
      const dropUnused = this.sql.get(
        `DELETE FROM blobs WHERE sha256 = @sha256
           AND NOT EXISTS (SELECT 1 FROM message_attachments WHERE blob_sha256 = @sha256)
           AND NOT EXISTS (SELECT 1 FROM uploads WHERE blob_sha256 = @sha256)`,
      );
      for (const { sha256 } of blobs) dropUnused.run({ sha256 });
      this.sql.get('DELETE FROM tenants WHERE id = ?').run(id);
      return true;
    })();
  }
}
