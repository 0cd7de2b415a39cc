// Every area's tables; drizzle-kit reads this file to generate migrations/.
export * from './apps.js';
export * from './users.js';
