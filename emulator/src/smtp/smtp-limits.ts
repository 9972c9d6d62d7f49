/**
 * What one SMTP client may hold of the emulator (issue 27 items 2 and 3). Kept apart from the
 * ingress so the CLI can name the defaults without loading smtp-server.
 */
export interface SmtpLimits {
  /**
   * Connections served at once (smtp-server's `maxClients`); one more is answered
   * `421 … Too many connected clients` and closed. With the message size limit it bounds the
   * memory the ingress can hold: at most this many messages of up to that size at a time.
   */
  maxClients: number;
  /**
   * How long a DATA phase may take, from `354` to the final dot. smtp-server's idle timeout is
   * reset by every byte, so a client trickling a byte at a time would hold the connection (and
   * one of `maxClients`) for ever; past this deadline it gets `421 4.4.2` and is closed.
   */
  dataTimeoutMs: number;
  /** How long a whole connection may last, whatever it does; then `421 4.4.2` and closed. */
  sessionTimeoutMs: number;
  /** How long a client may send nothing while the server waits for it (smtp-server's `socketTimeout`). */
  idleTimeoutMs: number;
  /** On close: how long connections in progress may finish before they get `421` (`closeTimeout`). */
  closeGraceMs: number;
}

/**
 * Generous for a local test tool: a 25 MiB message crosses loopback in well under a second, and a
 * test suite seldom has more than a few pooled connections open (nodemailer's pool opens 5).
 * Deadlines count real time, not the emulator's movable clock: they protect the process.
 */
export const DEFAULT_SMTP_LIMITS: SmtpLimits = {
  maxClients: 20,
  dataTimeoutMs: 60_000,
  sessionTimeoutMs: 600_000,
  idleTimeoutMs: 60_000,
  closeGraceMs: 5_000,
};
