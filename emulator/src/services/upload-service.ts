import { ApiError, quoteForMessage } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import type { Access } from '../domain/access.ts';
import type { Store } from '../store/store.ts';
import type { Upload } from '../store/upload-store.ts';
import type { AttachmentSource } from './send-service.ts';

/** A file as the client sent it. */
export interface IncomingFile {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/** Bytes to serve, with how to name and type them. */
export interface Download {
  name: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * Uploads (§2.4, §4.9, §4.10): owned by the key's owner (D-32), reusable by id in any number
 * of messages without copying the bytes, served by id to keys that may touch them (D-33) and
 * by an unguessable public URL to anyone (D-43).
 */
export class UploadService implements AttachmentSource {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {}

  /** `fixedId` is for fixtures only (the upload the spec's examples attach); it must be unused. */
  create(ownerId: string, file: IncomingFile, fixedId?: string): Upload {
    if (
      fixedId !== undefined &&
      (this.store.uploads.get(fixedId) !== undefined ||
        this.store.emails.attachment(fixedId) !== undefined)
    ) {
      throw new ApiError(
        'invalid_field',
        `An attachment or upload ${quoteForMessage(fixedId)} exists already.`,
        'id',
      );
    }
    return this.store.uploads.create(
      {
        id: fixedId ?? this.ids.uuid(),
        ownerId,
        name: file.name,
        contentType: file.contentType,
        size: file.bytes.length,
        urlToken: this.ids.secret(32),
        createdAt: this.clock.now().toISOString(),
      },
      file.bytes,
    );
  }

  /** The uploads behind `attachmentIds`, in order; any id the owner does not own is a 404. */
  resolve(ownerId: string, ids: string[]): IncomingFile[] {
    return ids.map((id, i) => {
      const found = this.store.uploads.get(id);
      if (found === undefined || found.upload.ownerId !== ownerId) {
        throw new ApiError(
          'attachment_not_found',
          `No attachment ${quoteForMessage(id)} is available to this key.`,
          `attachmentIds[${i}]`,
        );
      }
      return { name: found.upload.name, contentType: found.upload.contentType, bytes: found.bytes };
    });
  }

  /** §4.10: an upload of the key's owner, or an attachment of a message the key may touch. */
  download(access: Access, id: string): Download {
    const upload = this.store.uploads.get(id);
    if (upload !== undefined && upload.upload.ownerId === access.owner.id) {
      return {
        name: upload.upload.name,
        contentType: upload.upload.contentType,
        bytes: upload.bytes,
      };
    }
    const attached = this.store.emails.attachment(id);
    if (attached !== undefined && access.mailboxes.has(attached.mailbox)) {
      return {
        name: attached.attachment.name,
        contentType: attached.attachment.contentType,
        bytes: attached.bytes,
      };
    }
    throw new ApiError(
      'attachment_not_found',
      `No attachment ${quoteForMessage(id)} is available to this key.`,
      'attachmentId',
    );
  }

  /** D-43: the public URL; no key, no expiry. */
  publicDownload(token: string): Download | undefined {
    const found = this.store.uploads.byToken(token);
    return (
      found && {
        name: found.upload.name,
        contentType: found.upload.contentType,
        bytes: found.bytes,
      }
    );
  }

  publicUrl(origin: string, upload: Upload): string {
    return `${origin}/content/attachments/${upload.urlToken}/${encodeURIComponent(upload.name)}`;
  }
}
