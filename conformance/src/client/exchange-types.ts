// The shape of one recorded HTTP exchange: what exchange.ts records and curl.ts replays, in a
// module of its own so that neither imports the other both ways.

/** A request body as a client sends it: text (JSON included), bytes, or multipart form data. */
export type RequestBody = string | Uint8Array | FormData;

/** One part of a multipart body: a text field, or a file with its bytes. */
export interface ExchangePart {
  name: string;
  value?: string;
  bytes?: Uint8Array;
  filename?: string;
  type?: string;
}

/** One HTTP request and its answer, kept so that a failure can show and replay it. */
export interface Exchange {
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    /** The body as text, or a note for binary bodies. */
    body?: string;
    /** A binary body's bytes (a replay reads them from a saved file). */
    bytes?: Uint8Array;
    /** A multipart body's parts (a replay sends them with `curl -F`). */
    parts?: ExchangePart[];
  };
  response?: {
    status: number;
    headers: Record<string, string>;
    bodyText: string;
  };
  /** How the response breaks spec/openapi.yaml; empty when it conforms. */
  violations: string[];
}
