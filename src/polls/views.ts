import type { Shape } from '../realtime/compact/shapes.js';
import type { Choice, Lead, Poll, PollResponse, PollStandingsRead } from './types.js';
import { isoOrNull } from '../iso.js';

export function choiceView(c: Choice) {
  return {
    kind: 'poll.choice',
    id: c.id,
    // The JS SDK names a choice by `choiceid` and a poll by `pollid`.
    choiceid: c.id,
    pollid: c.pollId,
    position: c.position,
    title: c.title,
    subtitle: c.subtitle,
    imageurl: c.imageUrl,
    videoid: c.videoId,
    embedcode: c.embedCode,
    customid: c.customId,
    customtype: c.customType,
    custompayload: c.customPayload,
    customfield1: c.customField1,
    customfield2: c.customField2,
    customtags: c.customTags,
    responsecount: c.responseCount,
    added: c.added.toISOString(),
  };
}

/** The poll.poll object, with its choices in position order. */
export function pollView(p: Poll, choices: Choice[]) {
  return {
    kind: 'poll.poll',
    id: p.id,
    pollid: p.id,
    appid: p.appId,
    customid: p.customId,
    ownerid: p.ownerId,
    title: p.title,
    subtitle: p.subtitle,
    description: p.description,
    pictureurl: p.pictureUrl,
    customtype: p.customType,
    custompayload: p.customPayload,
    customfield1: p.customField1,
    customfield2: p.customField2,
    customtags: p.customTags,
    allowmultiplechoicesperuser: p.allowMultipleChoicesPerUser,
    maxtotalresponsesperuser: p.maxTotalResponsesPerUser,
    maxresponsesperchoiceperuser: p.maxResponsesPerChoicePerUser,
    whenpollopens: isoOrNull(p.whenPollOpens),
    whenpollcloses: isoOrNull(p.whenPollCloses),
    whenpollexpires: isoOrNull(p.whenPollExpires),
    status: p.status,
    displayresults: p.displayResults,
    sortchoices: p.sortChoices,
    sortanswers: p.sortChoices,
    totalresponses: p.totalResponses,
    choices: choices.map(choiceView),
    added: p.added.toISOString(),
    whenmodified: p.whenModified.toISOString(),
  };
}

/** Per choice: its count and share of all responses (0..1, and as a percentage rounded to 0.01). */
export function standingsView({ pollId, choices }: PollStandingsRead) {
  const total = choices.reduce((sum, c) => sum + c.responseCount, 0);
  return {
    kind: 'poll.standings',
    pollid: pollId,
    totalresponses: total,
    choices: choices.map((c) => ({
      choiceid: c.id,
      title: c.title,
      position: c.position,
      count: c.responseCount,
      share: total === 0 ? 0 : c.responseCount / total,
      percentage: total === 0 ? 0 : Math.round((c.responseCount / total) * 10_000) / 100,
    })),
  };
}

export function responseView(r: PollResponse) {
  return { kind: 'poll.response', id: r.id, pollid: r.pollId, choiceid: r.choiceId, userid: r.userId, added: r.added.toISOString() };
}

export function leadView(l: Lead) {
  return {
    kind: 'poll.lead',
    id: l.id,
    pollid: l.pollId,
    userid: l.userId,
    firstname: l.firstName,
    lastname: l.lastName,
    email: l.email,
    phone: l.phone,
    custompayload: l.customPayload,
    added: l.added.toISOString(),
  };
}

/** poll.standings in compact frames (docs/realtime.md). */
export const STANDINGS_SHAPE: Shape = {
  fields: [
    ['pollid', 'p', 'topic'],
    ['totalresponses', 'n'],
    ['choices', 'c'],
  ],
};
