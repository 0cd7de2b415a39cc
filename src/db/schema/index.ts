// Every area's tables; drizzle-kit reads this file to generate migrations/.
export * from './apps.js';
export * from './users.js';
export * from './chat-moderation.js';
export * from './polls.js';
export * from './webhooks.js';
export * from './notifications.js';
export * from './chat.js';
export * from './comments.js';
