import { conflict, type DomainError, forbidden } from '../../errors.js';
import type { Poll } from '../types.js';

/**
 * Why a poll takes no vote now, or null when it does. Timing and status refusals are 403 with
 * the reason in the message; per-user limits (see UserTally) are 409.
 */
export function votingClosedReason(poll: Poll, now: number): DomainError | null {
  if (poll.status === 'unpublished') return forbidden('The poll is not published.');
  if (poll.whenPollExpires !== null && poll.whenPollExpires.getTime() <= now) return forbidden('The poll has expired.');
  if (poll.status === 'closed' || (poll.whenPollCloses !== null && poll.whenPollCloses.getTime() <= now)) return forbidden('The poll is closed.');
  if (poll.whenPollOpens !== null && poll.whenPollOpens.getTime() > now) return forbidden('The poll is not open yet.');
  return null;
}

/** One user's responses to one poll so far, by choice; updated as a batch accepts votes. */
export class UserTally {
  private total = 0;
  private readonly byChoice = new Map<string, number>();

  add(choiceId: string, n = 1): void {
    this.total += n;
    this.byChoice.set(choiceId, (this.byChoice.get(choiceId) ?? 0) + n);
  }

  /** The refusal for one more response to `choiceId`, or null when the poll's limits allow it. */
  refusal(poll: Poll, choiceId: string): DomainError | null {
    if (poll.maxTotalResponsesPerUser > 0 && this.total >= poll.maxTotalResponsesPerUser) {
      return conflict(`The user has already given the ${poll.maxTotalResponsesPerUser} response(s) this poll allows.`, { userid: 'has no responses left in this poll' });
    }
    if (!poll.allowMultipleChoicesPerUser && [...this.byChoice.keys()].some((id) => id !== choiceId)) {
      return conflict('This poll allows a user to choose only one choice.', { choiceid: 'the user already chose another choice' });
    }
    const onChoice = this.byChoice.get(choiceId) ?? 0;
    if (poll.maxResponsesPerChoicePerUser > 0 && onChoice >= poll.maxResponsesPerChoicePerUser) {
      return conflict(`The user has already given the ${poll.maxResponsesPerChoicePerUser} response(s) this poll allows per choice.`, { choiceid: 'has no responses left for this user' });
    }
    return null;
  }
}
