CREATE TABLE `recreations` (
	`audit_id` integer PRIMARY KEY NOT NULL,
	`archive_id` text NOT NULL,
	`at` integer NOT NULL,
	`by` text NOT NULL
);

--> statement-breakpoint
-- Re-creations recorded before this migration, from the tombstones that still point at their delete.
INSERT OR IGNORE INTO `recreations` (`audit_id`, `archive_id`, `at`, `by`)
  SELECT `audit_id`, `archive_id`, `recreated_at`, COALESCE(`recreated_by`, '') FROM `tombstones` WHERE `recreated_at` IS NOT NULL;