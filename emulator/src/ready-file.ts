import { renameSync, rmSync, writeFileSync } from 'node:fs';

/** What `mailtwin serve --ready-file` writes once the emulator answers (issue 30 item 5). */
export interface ReadyInfo {
  origin: string;
  /** The API's base URL (§5 rule 5). */
  baseUrl: string;
  /** The control plane's base URL (spec/control.yaml). */
  controlUrl: string;
  controlToken: string;
  /** `smtp://host:port`, or null with `--no-smtp`. */
  smtpUrl: string | null;
  pid: number;
}

/**
 * Writes the file whole or not at all (a temporary file renamed over it), so a reader that
 * sees the file can parse it; returns the function that removes it when the emulator stops, so
 * a file left from an earlier run is never taken for this one's.
 */
export function writeReadyFile(path: string, info: ReadyInfo): () => void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, path);
  return () => rmSync(path, { force: true });
}
