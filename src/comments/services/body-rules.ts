import { badRequest } from '../../errors.js';
import { hasProfanity, maskProfanity } from '../../text/profanity.js';
import { extractHashtags, extractMentions } from '../../text/tags.js';
import type { Conversation } from '../types.js';

export interface AcceptedBody {
  body: string;
  censored: boolean;
  hashtags: string[];
  mentions: string[];
}

/**
 * What a conversation makes of a new or edited body: 400 beyond maxcommentlen (counted in
 * Unicode characters), `blocked` when the profanity filter is in block mode and the body has
 * profanity, else the body with profanities masked (mask mode) and its hashtags and mentions.
 */
export function acceptBody(conversation: Conversation, text: string): AcceptedBody | 'blocked' {
  const max = conversation.maxCommentLen;
  if (text.length > max && [...text].length > max) throw badRequest(`The comment is longer than this conversation allows (maxcommentlen ${max}).`, { body: `must be at most ${max} characters` });
  let body = text;
  let censored = false;
  if (conversation.enableProfanityFilter) {
    if (conversation.profanityFilterMode === 'block') {
      if (hasProfanity(text)) return 'blocked';
    } else {
      ({ text: body, censored } = maskProfanity(text));
    }
  }
  return { body, censored, hashtags: extractHashtags(body), mentions: extractMentions(body) };
}
