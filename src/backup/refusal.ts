/**
 * A backup, restore or move that will not go ahead, with what to do instead: the message is for an
 * operator (a command prints it and exits non-zero, the API answers it), and nothing was changed.
 */
export class RestoreRefused extends Error {}
