import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import sanitizeHtml from 'sanitize-html';
import { htmlToPlainText, renderMarkdown, sanitizeEmailHtml } from './markdown.ts';

const html = (markdown: string) => renderMarkdown(markdown).html;
const text = (markdown: string) => renderMarkdown(markdown).text;

const ALLOWED_TAGS = new Set(
  'h1 h2 h3 h4 h5 h6 p br hr blockquote pre code strong b em i s del u sup sub span div ul ol li a img table thead tbody tr th td'.split(
    ' ',
  ),
);
const FORBIDDEN_TAG =
  /<\s*\/?\s*(?:script|iframe|object|embed|svg|math|style|form|input|base|meta|link)\b/i;

/**
 * Scheme of a URL as a browser sees it: browsers skip C0 controls and spaces inside a URL,
 * so `jav\tascript:` is `javascript:`. `undefined` for a relative URL.
 */
function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):/i.exec(url.replace(/[\u0000-\u0020]+/g, ''))?.[1]?.toLowerCase();
}

/**
 * The honest check: parse the output back (htmlparser2, through sanitize-html with nothing
 * filtered) so attribute values arrive entity-decoded, exactly as a browser would read them,
 * then look at every element and attribute. "javascript:" as *text* (a Markdown link the
 * renderer refused stays literal text, HTML-escaped) is inert and not counted; in a URL it is.
 * String matching is used only where it cannot be fooled: text `<` is always escaped as `&lt;`,
 * so a raw `<script` or `<iframe` in the output can only be a tag.
 */
function unsafeParts(output: string): string[] {
  const found: string[] = [];
  if (FORBIDDEN_TAG.test(output)) found.push(`raw tag ${FORBIDDEN_TAG.exec(output)?.[0]}`);
  sanitizeHtml(output, {
    allowedTags: false,
    allowedAttributes: false,
    allowVulnerableTags: true, // nothing is kept: the call only walks the parse
    onOpenTag(name, attribs) {
      if (!ALLOWED_TAGS.has(name)) found.push(`<${name}>`);
      for (const [attr, value] of Object.entries(attribs)) {
        if (/^on/i.test(attr) || attr === 'style' || attr === 'srcset')
          found.push(`${name}[${attr}]`);
        if (attr !== 'href' && attr !== 'src') continue;
        const scheme = schemeOf(value);
        const ok =
          scheme === undefined ||
          ['http', 'https', 'mailto'].includes(scheme) ||
          (name === 'img' && scheme === 'cid') ||
          (name === 'img' && /^data:image\/(?:png|gif|jpeg|webp);base64,/i.test(value));
        if (!ok || value.trim().startsWith('//')) found.push(`${name}[${attr}=${value}]`);
      }
    },
  });
  return found;
}

describe('renderMarkdown: HTML part (§4.3)', () => {
  it('renders headings, emphasis, inline code and strikethrough', () => {
    expect(html('# Title\n\n## Sub\n\n*em* **strong** `x < y` ~~gone~~')).toBe(
      '<h1>Title</h1>\n<h2>Sub</h2>\n<p><em>em</em> <strong>strong</strong> <code>x &lt; y</code> <s>gone</s></p>\n',
    );
  });

  it('renders bullet and numbered lists, keeping a numbered list start', () => {
    expect(html('- a\n- b\n\n3. c\n4. d')).toBe(
      '<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<ol start="3">\n<li>c</li>\n<li>d</li>\n</ol>\n',
    );
  });

  it('renders links with title, linkifies bare URLs and e-mail addresses', () => {
    expect(
      html('[docs](https://example.com/a?b=1&c=2 "Docs") https://example.org me@example.com'),
    ).toBe(
      '<p><a href="https://example.com/a?b=1&amp;c=2" title="Docs">docs</a> ' +
        '<a href="https://example.org">https://example.org</a> ' +
        '<a href="mailto:me@example.com">me@example.com</a></p>\n',
    );
  });

  it('renders fenced code blocks escaped and without the language class', () => {
    expect(html('```js\nif (a < b && c) {}\n```')).toBe(
      '<pre><code>if (a &lt; b &amp;&amp; c) {}\n</code></pre>\n',
    );
  });

  it('renders GFM tables, turning column alignment into the align attribute', () => {
    expect(html('| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |')).toBe(
      '<table>\n<thead>\n<tr>\n<th align="left">a</th>\n<th align="center">b</th>\n<th align="right">c</th>\n</tr>\n</thead>\n' +
        '<tbody>\n<tr>\n<td align="left">1</td>\n<td align="center">2</td>\n<td align="right">3</td>\n</tr>\n</tbody>\n</table>\n',
    );
  });

  it('renders blockquotes, rules and images', () => {
    expect(html('> said\n\n---\n\n![logo](https://example.com/l.png "L")')).toBe(
      '<blockquote>\n<p>said</p>\n</blockquote>\n<hr />\n<p><img src="https://example.com/l.png" alt="logo" title="L" /></p>\n',
    );
  });

  it('does not turn single newlines into <br> (breaks: false)', () => {
    expect(html('one\ntwo')).toBe('<p>one\ntwo</p>\n');
  });

  it('keeps allowed raw HTML and drops its style, class and id', () => {
    expect(
      html('Hi <u class="x">under</u> H<sub>2</sub>O <span style="color:red" id="s">red</span>'),
    ).toBe('<p>Hi <u>under</u> H<sub>2</sub>O <span>red</span></p>\n');
  });

  it('keeps only known align values on table cells', () => {
    expect(
      sanitizeEmailHtml(
        '<td align="CENTER">a</td><td align="x(1)">b</td><th style="text-align: right">c</th>',
      ),
    ).toBe('<td align="center">a</td><td>b</td><th align="right">c</th>');
  });

  it('renders h3 to h6 headings, hard line breaks, and http links and images', () => {
    expect(
      html(
        '### Three\n\n#### Four\n\n##### Five\n\n###### Six\n\n' +
          'line one  \nline two: [site](http://example.com/a) ![chart](http://example.com/c.png)',
      ),
    ).toBe(
      '<h3>Three</h3>\n<h4>Four</h4>\n<h5>Five</h5>\n<h6>Six</h6>\n' +
        '<p>line one<br />\nline two: <a href="http://example.com/a">site</a> ' +
        '<img src="http://example.com/c.png" alt="chart" /></p>\n',
    );
  });

  it('keeps raw b, i, del, sup and div elements', () => {
    expect(
      html(
        'Say <b>bold</b>, <i>italic</i>, <del>old</del> and x<sup>2</sup>.\n\n<div>A raw block</div>',
      ),
    ).toBe(
      '<p>Say <b>bold</b>, <i>italic</i>, <del>old</del> and x<sup>2</sup>.</p>\n<div>A raw block</div>',
    );
  });

  it('keeps anchor names, image sizes and table cell spans', () => {
    expect(
      sanitizeEmailHtml(
        '<a name="top">Top</a> <img src="cid:logo" alt="logo" width="120" height="40">' +
          '<table><tr><th rowspan="2">Name</th><th colspan="2">Score</th></tr>' +
          '<tr><td colspan="2">both</td><td rowspan="2">one</td></tr></table>',
      ),
    ).toBe(
      '<a name="top">Top</a> <img src="cid:logo" alt="logo" width="120" height="40" />' +
        '<table><tr><th rowspan="2">Name</th><th colspan="2">Score</th></tr>' +
        '<tr><td colspan="2">both</td><td rowspan="2">one</td></tr></table>',
    );
  });

  it('turns justify and text-align styles (spaced, or after other declarations) into align', () => {
    expect(
      sanitizeEmailHtml(
        '<td align="justify">a</td><td style="color: red; text-align: right">b</td>' +
          '<th style="text-align : center ;">c</th><td style="mytext-align: left">d</td>',
      ),
    ).toBe('<td align="justify">a</td><td align="right">b</td><th align="center">c</th><td>d</td>');
  });

  it('keeps an image URL that merely contains data:, drops a data: source that is not wholly a base64 raster image', () => {
    expect(
      sanitizeEmailHtml(
        '<img src="https://example.com/img?from=data:feed" alt="a">' +
          '<img src="data:text/html;base64,PHA+,data:image/png;base64,iVBORw0KGgo=" alt="b">' +
          '<img src="data:image/png;base64,iVBORw0KGgo=%3Csvg%3E" alt="c">',
      ),
    ).toBe(
      '<img src="https://example.com/img?from=data:feed" alt="a" /><img alt="b" /><img alt="c" />',
    );
  });

  it.each([
    ['textarea', 'Before<textarea>typed</textarea> after'],
    ['option', 'Before<option>One</option> after'],
    ['xmp', 'Before<xmp>listing</xmp> after'],
    ['noscript', 'Before<noscript>Enable JavaScript</noscript> after'],
    ['noembed', 'Before<noembed>fallback</noembed> after'],
    ['noframes', 'Before<noframes>fallback</noframes> after'],
    ['iframe', 'Before<iframe>fallback</iframe> after'],
    ['template', 'Before<template>row</template> after'],
    ['title', 'Before<title>Page</title> after'],
    ['svg', 'Before<svg><text>label</text></svg> after'],
    ['math', 'Before<math><mi>x</mi></math> after'],
    ['object', 'Before<object>fallback</object> after'],
    ['select', 'Before<select>choice</select> after'],
    ['head', 'Before<head>meta</head> after'],
  ])('drops a <%s> element together with its text', (_tag, input) => {
    expect(sanitizeEmailHtml(input)).toBe('Before after');
  });

  it('keeps cid: and raster data: images, drops SVG data: images and protocol-relative URLs', () => {
    const out = sanitizeEmailHtml(
      '<img src="cid:logo@mail" alt="a"><img src="data:image/png;base64,iVBORw0KGgo=" alt="b">' +
        '<img src="data:image/svg+xml;base64,PHN2Zz4=" alt="c"><a href="//evil.example/x">d</a>',
    );
    expect(out).toBe(
      '<img src="cid:logo@mail" alt="a" /><img src="data:image/png;base64,iVBORw0KGgo=" alt="b" /><img alt="c" /><a>d</a>',
    );
  });
});

const XSS_VECTORS: string[] = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<img src="x" onerror="alert(1)"/>',
  '<a href="javascript:alert(1)">x</a>',
  '[x](javascript:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '![x](javascript:alert(1))',
  '[x][r]\n\n[r]: javascript:alert(1)',
  '<javascript:alert(1)>',
  '[x](&#106;avascript:alert(1))',
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">x</a>',
  '<a href="jAvAsCrIpT&colon;alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<a href="jav\tascript:alert(1)">x</a>',
  '<a href="java\nscript:alert(1)">x</a>',
  '<a href="java&#x0A;script:alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  '<a href="\u0001javascript:alert(1)">x</a>',
  '<a href="https://ok.example" onclick="alert(1)">x</a>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<style>body{background:url(javascript:alert(1))}</style>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<form action="javascript:alert(1)"><input type=submit></form>',
  '<button formaction="javascript:alert(1)">x</button>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '[x](data:text/html,<script>alert(1)</script>)',
  '<img src="da&#x09;ta:text/html,<script>alert(1)</script>">',
  '<a href="vbscript:msgbox(1)">x</a>',
  '[x](VBScript:msgbox(1))',
  '<img src="x" alt="&quot; onerror=&quot;alert(1)">',
  '<img src=x alt=""onerror=alert(1)//">',
  '<img """><script>alert(1)</script>">',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<!-- --><script>alert(1)</script><!-- -->',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<base href="javascript:alert(1)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<link rel=stylesheet href="javascript:alert(1)">',
  '<p style="background:url(javascript:alert(1))">x</p>',
  '<table background="javascript:alert(1)"><tr><td>x</td></tr></table>',
  '<img srcset="javascript:alert(1) 1x, x 2x">',
  '<div onmouseover="alert(1)">x</div>',
  '<details open ontoggle=alert(1)>x</details>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  '<template><script>alert(1)</script></template>',
  '<xmp><img src=x onerror=alert(1)></xmp>',
];

describe('renderMarkdown: sanitizer against XSS vectors', () => {
  it(`has at least 25 vectors (${XSS_VECTORS.length})`, () => {
    expect(XSS_VECTORS.length).toBeGreaterThanOrEqual(25);
  });

  it.each(XSS_VECTORS)('neutralizes %j', (vector) => {
    const out = html(vector);
    expect(out).not.toMatch(/<script/i);
    expect(unsafeParts(out)).toEqual([]);
    expect(unsafeParts(sanitizeEmailHtml(vector))).toEqual([]);
  });

  it('the oracle itself flags what it must (it is not vacuous)', () => {
    expect(unsafeParts('<a href="jav&#x09;ascript:x">a</a>')).toEqual(['a[href=jav\tascript:x]']);
    expect(unsafeParts('<img src=x onerror=y>')).toEqual(['img[onerror]']);
    expect(unsafeParts('<svg></svg>')).toEqual(['raw tag <svg', '<svg>']);
  });

  // Dangerous pieces assembled into real shapes (elements with attributes, Markdown links) with
  // obfuscated schemes, shuffled with loose fragments and random text.
  const obfuscatedChar = (c: string) =>
    fc.constantFrom(
      c,
      c.toUpperCase(),
      `&#${c.charCodeAt(0)};`,
      `&#x${c.charCodeAt(0).toString(16)};`,
      `${c}\t`,
      `${c}&#x0A;`,
    );
  const dangerousUrl = fc
    .tuple(
      fc.constantFrom('', ' ', '\u0001', '&#32;'),
      fc.constantFrom('javascript', 'vbscript', 'data'),
      fc.constantFrom(':', '&#58;', '&colon;'),
      fc.constantFrom('alert(1)', 'text/html,<script>alert(1)</script>', 'msgbox(1)'),
    )
    .chain(([lead, scheme, colon, payload]) =>
      fc
        .tuple(...[...scheme].map(obfuscatedChar))
        .map((cs) => `${lead}${cs.join('')}${colon}${payload}`),
    );
  const element = fc
    .tuple(
      fc.constantFrom(
        'a',
        'img',
        'iframe',
        'svg',
        'div',
        'p',
        'form',
        'object',
        'embed',
        'base',
        'td',
        'math',
      ),
      fc.constantFrom(
        'href',
        'src',
        'onerror',
        'onload',
        'OnClick',
        'style',
        'action',
        'srcset',
        'background',
      ),
      fc.constantFrom('"', "'", ''),
      fc.oneof(
        dangerousUrl,
        fc.constantFrom('alert(1)', 'x" onerror="alert(1)', 'url(javascript:alert(1))'),
      ),
    )
    .map(([tag, attr, q, value]) => `<${tag} ${attr}=${q}${value}${q}>x</${tag}>`);
  const markdownLink = fc
    .tuple(
      fc.constantFrom('[x](%)', '![x](%)', '<%>', '[x][r]\n\n[r]: %', '[x](% "t")'),
      dangerousUrl,
    )
    .map(([shape, url]) => shape.replace('%', url));
  const fragment = fc.constantFrom(
    ...[
      '<',
      '>',
      '"',
      "'",
      '=',
      ' ',
      '\t',
      '\n',
      '\n\n',
      '/',
      '`',
      '```\n',
      '<!--',
      '-->',
      '# ',
      '- ',
    ],
    ...[
      '<script>',
      '</script>',
      '<scr',
      'ipt>',
      '<svg/onload=alert(1)>',
      'onerror=',
      '| a |\n|---|\n| ',
    ],
  );

  it('never lets an event handler, a script or a script URL through, for any mix of fragments', () => {
    const piece = fc.oneof(element, markdownLink, fragment, fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const out = html(parts.join(''));
        expect(out).not.toMatch(/<script/i);
        expect(unsafeParts(out)).toEqual([]);
      }),
      { numRuns: 1000 },
    );
    // 1,000 renders take about 2 s on an idle machine; a busy one must not fail it for time.
  }, 60_000);
});

describe('renderMarkdown: plain-text part (§4.3)', () => {
  it('derives readable text: unchanged headings, - and 1. lists, links as text [url]', () => {
    expect(
      text(
        '# Hello World\n\nSee [the docs](https://example.com/docs).\n\n- one\n- two\n\n1. first\n2. second',
      ),
    ).toBe(
      'Hello World\n\nSee the docs [https://example.com/docs].\n\n- one\n- two\n\n1. first\n2. second',
    );
  });

  it('numbers a list from its Markdown start, aligning items and continuation lines past 9', () => {
    expect(text('9. nine\n10. ten  \n    continued')).toBe('9.  nine\n10. ten\n    continued');
  });

  it('indents nested numbered lists under their item, with no blank lines around them', () => {
    expect(text('- a\n  1. b\n  2. c\n- d')).toBe('- a\n  1. b\n  2. c\n- d');
    expect(text('1. a\n   1. b\n   2. c\n2. d')).toBe('1. a\n   1. b\n   2. c\n2. d');
  });

  it('shows a bare URL once and mailto links as the address', () => {
    expect(text('Go to https://example.org or write to me@example.com')).toBe(
      'Go to https://example.org or write to me@example.com',
    );
  });

  it('contains no HTML tags and decodes entities', () => {
    const out = text('**a** & <u>b</u> `x < y`\n\n| h |\n|---|\n| c |\n\n> q');
    expect(out).not.toMatch(/<\/?[a-z][^>]*>/i);
    expect(out).toBe('a & b x < y\n\nh\nc\n\n> q');
  });

  it('shows images as their alt text, never their source (no data: blobs)', () => {
    const out = text(
      '![logo](https://example.com/l.png) <img src="data:image/png;base64,iVBORw0KGgo=" alt="pic">',
    );
    expect(out).toBe('logo pic');
  });

  it('keeps Unicode as it is', () => {
    expect(text('Café é 😀 日本語')).toBe('Café é 😀 日本語');
  });

  it('is non-empty for non-empty Markdown and does not hard-wrap long lines', () => {
    const long = 'word '.repeat(40).trim();
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]{1,20}$/), (word) => {
        expect(text(word).length).toBeGreaterThan(0);
      }),
    );
    expect(text(long)).toBe(long);
  });

  it('has no trace of the content the sanitizer dropped', () => {
    expect(text('Hi<script>alert(1)</script><style>p{}</style>')).toBe('Hi');
  });
});

describe('htmlToPlainText for HTML bodies', () => {
  it('skips head, style and script of a full document', () => {
    expect(
      htmlToPlainText(
        '<html><head><title>T</title><style>p{color:red}</style></head><body><h2>Hi</h2><p>there</p><script>x()</script></body></html>',
      ),
    ).toBe('Hi\n\nthere');
  });

  it('skips noscript, template and head content when there is no body element', () => {
    expect(
      htmlToPlainText(
        '<head><title>T</title></head><p>Hi</p><noscript>Enable JavaScript</noscript><template><p>row</p></template>',
      ),
    ).toBe('Hi');
  });

  it('sets a numbered list apart from the text after it', () => {
    expect(htmlToPlainText('<div>Steps:<ol><li>open</li><li>close</li></ol>Done.</div>')).toBe(
      'Steps:\n1. open\n2. close\n\nDone.',
    );
  });
});
