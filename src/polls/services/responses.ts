import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { type Page, pageOf, stringCursor } from '../../http/cursor.js';
import { newId } from '../../ids.js';
import type { LeadInput, PageRequest } from '../schemas.js';
import * as store from '../store/responses.js';
import type { Lead, PollResponse } from '../types.js';
import type { PollService } from './polls.js';

/** What ResponseService uses. */
export interface ResponseServiceDeps {
  db: Db;
  polls: Pick<PollService, 'require'>;
}

const after = (page: PageRequest) => stringCursor(page.cursor) ?? '';

/** What the audience left on a poll: its responses (given through VoteBatcher) and leads. */
export class ResponseService {
  constructor(private readonly deps: ResponseServiceDeps) {}

  /** Every response of one user, oldest first. */
  async ofUser(app: Application, pollId: string, userId: string): Promise<PollResponse[]> {
    const poll = await this.deps.polls.require(app, pollId);
    return store.userResponses(this.deps.db, poll.id, userId);
  }

  /** Every response, oldest first. */
  async all(app: Application, pollId: string, page: PageRequest): Promise<Page<PollResponse>> {
    const poll = await this.deps.polls.require(app, pollId);
    const rows = await store.listResponses(this.deps.db, poll.id, after(page), page.limit + 1);
    return pageOf(rows, page.limit, (r) => r.id);
  }

  async addLead(app: Application, pollId: string, input: LeadInput): Promise<Lead> {
    const poll = await this.deps.polls.require(app, pollId);
    const { userid, firstname, lastname, email, phone, custompayload } = input;
    return store.insertLead(this.deps.db, { id: newId(), pollId: poll.id, userId: userid ?? null, firstName: firstname, lastName: lastname, email, phone, customPayload: custompayload });
  }

  /** Every lead, oldest first. */
  async leads(app: Application, pollId: string, page: PageRequest): Promise<Page<Lead>> {
    const poll = await this.deps.polls.require(app, pollId);
    const rows = await store.listLeads(this.deps.db, poll.id, after(page), page.limit + 1);
    return pageOf(rows, page.limit, (l) => l.id);
  }
}
