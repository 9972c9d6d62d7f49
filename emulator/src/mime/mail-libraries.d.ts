// The parts of mailparser's own libraries that simple-parse.ts uses (pinned in package.json at
// the versions mailparser 3.9.31 installs); they ship no types.

declare module 'libmime' {
  const libmime: {
    /** RFC 2047 encoded words decoded, as mailparser decodes subjects and names. */
    decodeWords(value: string): string;
    /** `type/sub; a=b` as its value and parameters, as mailsplit reads Content-Type. */
    parseHeaderValue(value: string): { value: string; params: Record<string, string> };
  };
  export default libmime;
}

declare module 'libqp' {
  const libqp: {
    /** Quoted-printable decoded (libqp.Decoder decodes its whole input with it). */
    decode(value: string | Buffer): Buffer;
  };
  export default libqp;
}

declare module 'libbase64' {
  const libbase64: {
    /** Base64 decoded, each `=`-padded run on its own. */
    decode(value: string): Buffer;
  };
  export default libbase64;
}
