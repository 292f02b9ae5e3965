CREATE TABLE `annotations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`chunk_id` text NOT NULL,
	`version` integer,
	`key` text NOT NULL,
	`op` text NOT NULL,
	`value` text NOT NULL,
	`actor` text NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`at` integer NOT NULL,
	`recorded_at` integer NOT NULL,
	`event_id` text
);
--> statement-breakpoint
CREATE INDEX `annotations_chunk` ON `annotations` (`archive_id`,`chunk_id`,`key`,`at`);--> statement-breakpoint
CREATE UNIQUE INDEX `annotations_event` ON `annotations` (`archive_id`,`event_id`);