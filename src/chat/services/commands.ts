import type { Actor, Application } from '../../apps/types.js';
import { badRequest, forbidden } from '../../errors.js';
import type { UserService } from '../../users/service.js';
import type { COMMAND_EVENT_TYPES, Room } from '../types.js';
import type { CommandResult, EventView } from '../views.js';
import type { MessageInput, Messages } from './messages.js';
import type { Posting } from './posting.js';

/** Event types only the backend or a moderator/admin posts. */
const SPEAKS_FOR_THE_APP = new Set<string>(['announcement', 'ad']);

export interface CommandInput extends Omit<MessageInput, 'body'> {
  eventtype: (typeof COMMAND_EVENT_TYPES)[number];
  replyto?: string | undefined;
}

export interface CommandsDeps {
  users: UserService;
  posting: Posting;
  messages: Messages;
}

const ADMIN = /^\*(purge|ban|restore)\s+(\S+)\s*$/i;

const result = (op: string, speech: EventView | null, action: EventView | null, event: EventView | null = null): CommandResult => ({ op, speech, action, event });

/**
 * `command`: a message (speech, announcement, custom, ad; a quote when replyto is given), an
 * action (`/wave`, when the room enables actions) or an admin command (`*purge`, `*ban`,
 * `*restore` followed by a userid) that only moderators and admins may run.
 */
export class Commands {
  constructor(private readonly deps: CommandsDeps) {}

  async execute(app: Application, room: Room, userId: string, text: string, input: CommandInput, actor: Actor | null): Promise<CommandResult> {
    if (text.startsWith('*')) return this.admin(app, room, userId, text, actor);
    if (input.replyto !== undefined && input.replyto !== '') {
      return result('quote', await this.deps.messages.quote(app, room, input.replyto, userId, { ...input, body: text }), null);
    }
    if (SPEAKS_FOR_THE_APP.has(input.eventtype) && actor?.role === 'user') throw forbidden(`A user token may not post ${input.eventtype} events; they speak for the application.`);
    const sender = await this.deps.posting.sender(app, room, userId);
    if (text.startsWith('/')) {
      if (!room.enableActions) throw forbidden(`Actions are turned off in room ${room.id}.`);
      const body = text.slice(1).trim();
      if (body === '') throw badRequest('An action needs a name after the /.', { command: 'is an empty action' });
      return result('action', null, await this.deps.posting.post(app, room, sender, { ...input, eventtype: 'action', body }));
    }
    return result(input.eventtype, await this.deps.posting.post(app, room, sender, { ...input, body: text }), null);
  }

  private async admin(app: Application, room: Room, userId: string, text: string, actor: Actor | null): Promise<CommandResult> {
    const match = ADMIN.exec(text);
    if (match === null) throw badRequest('Unknown admin command; use *purge <userid>, *ban <userid> or *restore <userid>.', { command: 'is not an admin command' });
    const sender = await this.deps.posting.sender(app, room, userId);
    if (!sender.staff || actor?.role === 'user') throw forbidden('Admin commands need a moderator or admin.');
    const op = (match[1] as string).toLowerCase();
    const target = await this.deps.users.require(app, match[2] as string);
    if (op === 'purge') return result('purge', null, null, (await this.deps.messages.purge(app, room, target.userId, userId)).event);
    await this.deps.users.setEffect(app, target.userId, 'banned', op === 'ban', undefined);
    return result(op, null, null);
  }
}
