import { sql } from 'kysely';

/**
 * Starts a statement whose best plan depends on its values (a page, a
 * claim): PostgreSQL then plans it with them every time, as it is never
 * prepared under a name (statement-names.ts). A comment, so SQLite
 * runs it unchanged and a reader of pg_stat_activity sees why.
 */
export const PLANNED_WITH_VALUES = '/* planned with its values */';

/** the comment as the first words of a `sql` template: sql`${plannedWithValues} select …` */
export const plannedWithValues = sql.raw(PLANNED_WITH_VALUES);
