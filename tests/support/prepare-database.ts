/**
 * Builds the migrated test-database template (TEST_DB: PGlite, or PostgreSQL at TEST_DATABASE_URL) before a test run,
 * so no test file's `beforeAll` pays for the migrations under its hook deadline (on a loaded machine that took longer
 * than the hook may). Run by `bun run test`; a template that exists is reused.
 */
import { createTestDatabase } from './database';

const started = performance.now();
const database = await createTestDatabase();
await database.dispose();
console.log(`test database template (${database.location.kind}) ready in ${Math.round(performance.now() - started)} ms`);
