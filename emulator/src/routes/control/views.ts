import type { ApiKey, Mailbox, Owner, Suppression } from '../../domain/types.ts';

/**
 * The control plane's JSON views, field by field as spec/control.yaml lists them, so a field
 * added to a domain type is never published by accident (a key's secret hash, above all).
 */
export const ownerView = ({ id, name, disabled, createdAt }: Owner) => ({
  id,
  name,
  disabled,
  createdAt,
});

export const mailboxView = ({ address, domain, displayName }: Mailbox) => ({
  address,
  domain,
  displayName,
});

/** §2.1: a key is shown without its secret everywhere but in the answer that creates it. */
export const keyView = (key: ApiKey) => ({
  id: key.id,
  ownerId: key.ownerId,
  name: key.name,
  scope: key.scope,
  domain: key.domain,
  mailboxes: key.mailboxes,
  disabled: key.disabled,
  createdAt: key.createdAt,
});

export const suppressionView = ({ address, reason, createdAt }: Suppression) => ({
  address,
  reason,
  createdAt,
});
