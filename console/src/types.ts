/** The REST objects the console reads (docs/realtime.md: WebSocket events carry the same). */
export interface UserRef {
  userid: string;
  handle: string;
  displayname: string;
}

export interface Room {
  id: string;
  name: string;
  customid: string | null;
  open: boolean;
  inroom: number;
  moderation: string;
  maxreports: number;
  lastmessagetime: string | null;
  flaggedusers?: string[];
  reportedusers?: { userid: string; reportedbyuserid: string; reason: string; added: string }[];
}

export interface Reaction {
  type: string;
  count: number;
}

export interface Report {
  userid: string;
  reason?: string;
  reporttype?: string;
}

export interface ChatEvent {
  id: string;
  roomid: string;
  body: string;
  added: string;
  ts: number;
  eventtype: string;
  userid: string | null;
  user: UserRef | null;
  replyto: ChatEvent | null;
  deleted: boolean;
  active: boolean;
  shadowban: boolean;
  reactions: Reaction[];
  moderation: string;
  reports: Report[];
}

export interface Comment {
  id: string;
  conversationid: string;
  body: string;
  added: string;
  userid: string;
  user: UserRef | null;
  moderation: string;
  reports: Report[];
}

export interface ReportedUser {
  userid: string;
  user: UserRef | null;
  reports: { userid: string; reason?: string; issuedat?: string }[];
  reportcount: number;
}

export interface Choice {
  id: string;
  title: string;
}

export interface Poll {
  id: string;
  title: string;
  status: string;
  totalresponses: number;
  choices: Choice[];
}

export interface Standings {
  pollid: string;
  totalresponses: number;
  choices: { choiceid: string; title: string; count: number; percentage: number }[];
}

export interface Webhook {
  id: string;
  label: string;
  url: string;
  enabled: boolean;
  type: string;
  events: string[];
  requiredcustomtags: string[];
  entities: string[];
  consecutivefailures: number;
}

export interface LogEntry {
  id: string;
  eventtype: string;
  statuscode: number | null;
  elapsed: number | null;
  completed: boolean;
  attempt: number;
  error: string | null;
  added: string;
}

export interface Signal {
  key: string;
  kind: string;
  active: number;
}

export interface Snapshot {
  contextid: string;
  signals: Signal[];
}

/** A page of a list: the items sit under a kind-specific key. */
export type Page<K extends string, T> = { cursor: string; more: boolean } & Record<K, T[]>;
