/**
 * Rendering a draft for one recipient (§2.6, §4.3): the subject filled in and held to its 998
 * characters (D-65), the body handed to the renderer (a render thread for a large one) with
 * the 5 MiB of §8 (D-42), and the refusals that name what to change.
 */
import type { Address } from '../domain/types.ts';
import { renderedLength, renderTemplate, type Variables } from '../domain/templates.ts';
import { unsubscribeToken } from '../domain/unsubscribe.ts';
import type { BodyJob, Source } from '../mime/render-body.ts';
import { RenderTimeout, type BodyRenderer } from '../mime/render-pool.ts';
import type { Draft, Rendered } from './send-draft.ts';
import {
  bodyTooComplex,
  MAX_MESSAGE_BYTES,
  messageTooLarge,
  subjectTooLong,
} from './send-limits.ts';

export class DraftRenderer {
  constructor(
    /** Renders bodies: large ones on worker threads, so no send holds the event loop. */
    private readonly renderer: BodyRenderer,
    /** Signs unsubscribe links so they cannot be forged for another address. */
    private readonly unsubscribeKey: string,
  ) {}

  async render(
    draft: Draft,
    recipient: Address,
    origin: string,
    messageId: string,
    now: Date,
  ): Promise<Rendered> {
    const values: Variables = {
      ...draft.variables,
      email: recipient.address,
      unsubscribe_url: this.unsubscribeUrl(origin, recipient.address),
    };
    // Code points are at least half the code units: a subject that long once filled in is
    // refused before it is made (variables could make it gigabytes).
    if ('template' in draft.subject && renderedLength(draft.subject.template, values) > 2 * 998)
      throw subjectTooLong();
    const subject =
      'template' in draft.subject
        ? renderTemplate(draft.subject.template, values)
        : draft.subject.literal;
    if ([...subject].length > 998) throw subjectTooLong();
    // Filled on the render thread, bounded there by the message limit (the preheader is kept
    // on the email with or without an HTML part).
    const preheader: BodyJob['preheader'] =
      draft.preheader === undefined ? null : { template: draft.preheader, values };
    let markdown: BodyJob['markdown'] = null;
    let text: BodyJob['text'];
    let html: Source | null;
    switch (draft.body.kind) {
      case 'markdown':
        markdown = { template: draft.large.markdown ?? draft.body.source, values };
        text = null;
        html = null;
        break;
      case 'text':
        text = { template: draft.large.text ?? draft.body.source, values };
        html = null;
        break;
      case 'html':
        text = null;
        html = draft.large.html ?? draft.body.source; // §2.6: variables never apply to raw HTML
        break;
      case 'original':
        ({ text, html } = draft.body);
        break;
    }
    const result = await this.renderWithin(draft, {
      markdown,
      text,
      html,
      preheader,
      message: {
        from: draft.from,
        to: draft.to,
        cc: draft.cc,
        subject,
        messageId,
        inReplyTo: draft.inReplyTo,
        references: draft.references,
        date: now,
        attachments: draft.attachments,
      },
      maxBytes: MAX_MESSAGE_BYTES,
    });
    if (!result.ok) throw messageTooLarge(draft, result);
    return { subject, ...result, raw: result.raw as Buffer };
  }

  /** Renders on the renderer; a render past its budget is the body's fault (D-67). */
  private renderWithin(draft: Draft, job: BodyJob) {
    return this.renderer.render(job).catch((error: unknown) => {
      throw error instanceof RenderTimeout ? bodyTooComplex(draft, error) : error;
    });
  }

  /** D-24: a per-recipient link that suppresses the address when opened; signed, so unforgeable. */
  private unsubscribeUrl(origin: string, address: string): string {
    return `${origin}/unsubscribe/${unsubscribeToken(this.unsubscribeKey, address)}`;
  }
}
