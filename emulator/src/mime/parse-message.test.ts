// Raw messages as parse-message.ts reads them: skipping mailparser's text-to-HTML step (issue 31
// item 2: about a third of its time) must give every message the html mailparser gives with it.
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { describe, expect, it } from 'vitest';
import { parseMessage } from './parse-message.ts';

const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'utf8');
const HEAD = [
  'From: Bob <bob@partner.test>',
  'To: alice@acme.test',
  'Subject: Hi',
  'MIME-Version: 1.0',
];

/** Messages of each shape mailparser treats apart, named. */
const MESSAGES: Record<string, Buffer> = {
  'text only': crlf([...HEAD, '', 'Hello, see https://example.com/a?b=1 & <more>.']),
  'HTML only': crlf([...HEAD, 'Content-Type: text/html', '', '<p>Hello <b>there</b></p>']),
  'text and HTML as alternatives': crlf([
    ...HEAD,
    'Content-Type: multipart/alternative; boundary=b',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'Hello https://example.com',
    '--b',
    'Content-Type: text/html',
    '',
    '<p>Hello</p>',
    '--b--',
  ]),
  'text beside HTML in multipart/mixed (the text goes into html, linkified)': crlf([
    ...HEAD,
    'Content-Type: multipart/mixed; boundary=b',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'First https://example.com/x & <y>',
    '--b',
    'Content-Type: text/html',
    '',
    '<p>Second</p>',
    '--b--',
  ]),
  'text beside an empty HTML part': crlf([
    ...HEAD,
    'Content-Type: multipart/mixed; boundary=b',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'Only text www.example.org',
    '--b',
    'Content-Type: text/html',
    '',
    '',
    '--b--',
  ]),
  'HTML that holds the separator itself': crlf([
    ...HEAD,
    'Content-Type: text/html',
    '',
    '<p>one<br/>',
    'two</p>',
  ]),
  'a delivery report beside HTML': crlf([
    ...HEAD,
    'Content-Type: multipart/report; report-type=delivery-status; boundary=b',
    '',
    '--b',
    'Content-Type: text/html',
    '',
    '<p>Not delivered</p>',
    '--b',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.com',
    '--b--',
  ]),
  'text, HTML and an attachment in mixed': crlf([
    ...HEAD,
    'Content-Type: multipart/mixed; boundary=b',
    '',
    '--b',
    'Content-Type: text/html',
    '',
    '<p>See attached</p>',
    '--b',
    'Content-Type: text/plain; name=notes.txt',
    'Content-Disposition: attachment; filename=notes.txt',
    '',
    'notes https://example.com',
    '--b',
    'Content-Type: text/plain',
    '',
    'Trailing text part http://example.net',
    '--b--',
  ]),
};

describe('parsing a raw message without mailparser textAsHtml (issue 31 item 2)', () => {
  for (const [shape, raw] of Object.entries(MESSAGES)) {
    it(`gives the text and html mailparser gives with its text-to-HTML step: ${shape}`, async () => {
      const full = await simpleParser(raw, { skipHtmlToText: true });
      const parsed = await parseMessage(raw);
      expect(parsed.content.html).toBe(typeof full.html === 'string' ? full.html : null);
      if (full.text !== undefined && full.text !== '') expect(parsed.content.text).toBe(full.text);
    });
  }

  it('gives the same for what nodemailer composes, alternatives and attachments included', async () => {
    const raw = await new MailComposer({
      from: 'Jin Park <jin.park@northwind.test>',
      to: 'hello@acme.test',
      subject: 'Order 1',
      text: 'Thanks www.northwind.test\n\nOrder 1',
      html: '<p>Thanks</p><p>Order <b>1</b></p>',
      attachments: [{ filename: 'a.txt', content: 'a https://x.test' }],
    })
      .compile()
      .build();
    const full = await simpleParser(raw, { skipHtmlToText: true });
    const parsed = await parseMessage(raw);
    expect(parsed.content.html).toBe(full.html);
    expect(parsed.content.text).toBe(full.text);
    expect(parsed.attachments.map((a) => a.bytes.toString())).toEqual(['a https://x.test']);
  });
});
