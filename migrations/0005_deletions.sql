CREATE TABLE `deletions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`target` text NOT NULL,
	`target_id` text NOT NULL,
	`actor` text NOT NULL,
	`at` integer NOT NULL,
	`counts` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `deletions_archive` ON `deletions` (`archive_id`,`id`);