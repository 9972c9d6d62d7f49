/**
 * The LICENSE file and package.json's `license` field say the same thing (issue 12 item 20): the
 * field is what npm and license scanners read, the file is what the MIT terms require to travel
 * with every copy. A change to either without the other fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HOLDER = 'the mailtwin authors';

/**
 * The text of each license we may declare, by SPDX id, with `<year>` and `<copyright holders>`
 * left open (the MIT text as published at https://spdx.org/licenses/MIT.html and by
 * choosealicense.com). Declaring another license in package.json means adding its text here.
 */
const LICENSE_TEXTS: Record<string, string> = {
  MIT: `MIT License

Copyright (c) <year> <copyright holders>

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`,
};

/** Line breaks and runs of spaces do not change a license's meaning (SPDX matching guideline 2.1.4). */
function words(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function declared(): unknown {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license?: unknown })
    .license;
}

describe('the license', () => {
  it('is declared in package.json as one SPDX id whose text we know', () => {
    const license = declared();
    expect(typeof license, 'package.json "license"').toBe('string');
    expect(Object.keys(LICENSE_TEXTS), `no text known for "${String(license)}"`).toContain(license);
  });

  it("is in a LICENSE file at the root whose text is package.json's license, word for word", () => {
    const path = join(ROOT, 'LICENSE');
    expect(existsSync(path), 'LICENSE at the repository root').toBe(true);
    const text = readFileSync(path, 'utf8');
    const copyright = text.match(/^Copyright \(c\) (\d{4}(?:-\d{4})?) (.+)$/m);
    expect(copyright?.[2], 'the copyright line names the holders').toBe(HOLDER);
    const expected = LICENSE_TEXTS[String(declared())]!.replace('<year>', copyright![1]!).replace(
      '<copyright holders>',
      HOLDER,
    );
    expect(words(text)).toBe(words(expected));
  });
});
