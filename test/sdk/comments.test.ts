// SDK results are loosely typed (the SDK's own models are partial); tests read them as JSON and assert on values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { Services } from 'sportstalk-sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { uid } from '../helpers/api.js';
import { commentAs, sdkApp, statusOf, userClient, type SdkApp } from './helpers.js';

let sdk: SdkApp;
beforeAll(async () => {
  sdk = await sdkApp();
});

describe('comments through CommentClient', () => {
  it('conversations: create, get, by customid, list, batch details, react, delete', async () => {
    const ownerid = uid('owner');
    const owner = commentAs(sdk, ownerid);
    // Reacting to a conversation needs a known user (commenting creates one on the fly).
    expect(await owner.createOrUpdateUser({ userid: ownerid, handle: ownerid })).toMatchObject({ userid: ownerid, displayname: ownerid });
    const conversationid = uid('conv');
    const customid = uid('ccid');
    const created: any = await owner.createConversation({ conversationid, customid, property: 'sdk.test', moderation: 'post', title: 'An article' } as any);
    expect(created).toMatchObject({ kind: 'comment.conversation', conversationid, customid, property: 'sdk.test', title: 'An article' });
    expect(await owner.getConversation(conversationid)).toMatchObject({ conversationid });
    expect(await owner.getConversationByCustomId(customid)).toMatchObject({ conversationid });
    const listed: any = await owner.listConversations({ propertyid: 'sdk.test' } as any);
    expect(listed.conversations.map((c: any) => c.conversationid)).toContain(conversationid);
    const reacted: any = await owner.reactToConversationTopic(conversationid, { reaction: 'like', reacted: true }, owner.getCurrentUser());
    expect(reacted).toMatchObject({ conversationid, likecount: 1 });
    const batch: any = await owner.getConversationBatchDetails([conversationid]);
    expect(batch.conversations.map((c: any) => c.conversationid)).toEqual([conversationid]);
    const deleted: any = await owner.deleteConversation(conversationid);
    // This SDK call returns the whole envelope.
    expect(deleted).toMatchObject({ code: 200, data: { kind: 'delete.conversation', conversationid } });
    expect(await statusOf(owner.getConversation(conversationid))).toBe(404);
  });

  it('comments and replies, edits, votes, reactions and un-reactions, reports, deletes', async () => {
    const ann = commentAs(sdk, uid('ann'));
    const ben = commentAs(sdk, uid('ben'));
    const conversationid = uid('conv');
    await ann.createConversation({ conversationid, property: 'sdk.test', moderation: 'post', maxreports: 1 } as any);
    ben.setCurrentConversationId(conversationid);

    // New commenters without a displayname: shown by their handle.
    const comment: any = await ann.publishComment('First comment from the SDK');
    expect(comment).toMatchObject({ kind: 'comment.comment', body: 'First comment from the SDK', userid: ann.getCurrentUser().userid });
    expect(comment.user.displayname).toBe(comment.user.handle);
    const reply: any = await ben.publishComment('A reply', comment);
    expect(reply).toMatchObject({ parentid: comment.id, body: 'A reply' });
    expect(await ann.getComment(comment.id)).toMatchObject({ id: comment.id, replycount: 1 });
    const replies: any = await ann.getCommentReplies(comment);
    expect(replies.comments.map((c: any) => c.id)).toEqual([reply.id]);
    const batch: any = await ann.listRepliesBatch([comment.id]);
    expect(JSON.stringify(batch.repliesgroupedbyparentid)).toContain(reply.id);

    const voted: any = await ben.voteOnComment(comment, 'up' as any);
    expect(voted).toMatchObject({ votecount: 1, votescore: 1 });
    const liked: any = await ben.reactToComment(comment, { reaction: 'like', reacted: true });
    expect(liked).toMatchObject({ likecount: 1 });
    const unliked: any = await ben.reactToComment(comment, { reaction: 'like', reacted: false });
    expect(unliked.reactions).toEqual([{ type: 'like', count: 0, users: [] }]);

    const edited: any = await ann.updateComment({ ...comment, body: 'First comment, edited' });
    expect(edited).toMatchObject({ body: 'First comment, edited', edited: true });
    const listed: any = await ann.listComments();
    expect(listed.comments.map((c: any) => c.body)).toContain('First comment, edited');

    // maxreports 1: the first report flags it into the moderation queue.
    const reported: any = await ben.reportComment(reply, 'abuse' as any);
    expect(reported).toMatchObject({ id: reply.id });
    const moderation = new Services.CommentModerationService(sdk.config as any);
    const queue: any = await moderation.listCommentsInModerationQueue();
    expect(queue.comments.map((c: any) => c.id)).toContain(reply.id);
    const approved: any = await moderation.approveComment(reply);
    expect(approved).toMatchObject({ id: reply.id, active: true });

    const removed: any = await ann.deleteComment(comment, true);
    expect(removed).toMatchObject({ kind: 'delete.comment', permanentdelete: true });
    expect(await ann.getComment(comment.id)).toBeFalsy();
  });

  it('pre-moderation: held comments are approved or rejected through the moderation service', async () => {
    const writer = commentAs(sdk, uid('w'));
    const conversationid = uid('conv');
    await writer.createConversation({ conversationid, property: 'sdk.test', moderation: 'pre' } as any);
    const good: any = await writer.publishComment('good');
    const bad: any = await writer.publishComment('bad');
    expect(good.active).toBe(false);
    const moderation = new Services.CommentModerationService(sdk.config as any);
    await moderation.moderateComment(good, true);
    await moderation.rejectComment(bad);
    const visible: any = await writer.listComments();
    expect(visible.comments.map((c: any) => c.body)).toEqual(['good']);
  });

  it('a closed conversation takes comments only from its owner and moderators', async () => {
    const ownerid = uid('owner');
    const owner = commentAs(sdk, ownerid);
    const conversationid = uid('conv');
    await owner.createConversation({ conversationid, property: 'sdk.test', moderation: 'post', open: false, owneruserid: ownerid } as any);
    const stranger = commentAs(sdk, uid('stranger'));
    stranger.setCurrentConversationId(conversationid);
    expect(await statusOf(stranger.publishComment('let me in'))).toBe(403);
    expect(await owner.publishComment('owner speaking')).toMatchObject({ body: 'owner speaking' });
    const modid = uid('mod');
    await userClient(sdk).createOrUpdateUser({ userid: modid, handle: modid, role: 'moderator' } as any);
    const mod = commentAs(sdk, modid);
    mod.setCurrentConversationId(conversationid);
    expect(await mod.publishComment('moderator speaking')).toMatchObject({ userid: modid });
  });
});
